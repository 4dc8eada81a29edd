// The values the evaluator computes. Composite literal fields are Lazy: a schema literal has many
// fields (validators, diff suppressors, CRUD functions) whose values never matter for the schema,
// and are never computed.
'use strict';

class Lazy {
  constructor(thunk) {
    this.thunk = thunk;
    this.done = false;
  }
}

/** The value behind any number of Lazy wrappers. */
function force(value) {
  while (value instanceof Lazy) {
    if (!value.done) {
      value.value = value.thunk();
      value.done = true;
    }
    value = value.value;
  }
  return value;
}

/** A struct value (pointers to structs too); `type` is its qualified name ("import/path.Name"). */
class GoStruct {
  constructor(type, fields = new Map()) {
    this.type = type;
    this.fields = fields;
  }

  /** A field's value; undefined when the literal did not set it (Go's zero value). */
  get(name) {
    return force(this.fields.get(name));
  }
}

class GoMap {
  constructor(entries = new Map()) {
    this.entries = entries;
  }

  get(key) {
    return force(this.entries.get(key));
  }
}

class GoSlice {
  constructor(items = []) {
    this.items = items;
  }
}

/** A function declared in the provider's source. */
class GoFunc {
  constructor(entry, receiver = null) {
    this.entry = entry;
    this.receiver = receiver;
  }
}

/** A function literal with the scope it closes over. */
class Closure {
  constructor(node, scope) {
    this.node = node;
    this.scope = scope;
  }
}

/** A name from outside the provider's source, e.g. the SDK's schema.TypeString. */
class Ref {
  constructor(name) {
    this.name = name;
  }
}

/** A type used as a value (a conversion's callee, make's argument). */
class TypeValue {
  constructor(name, node) {
    this.name = name;
    this.node = node;
  }
}

/**
 * A value the evaluator does not compute (a call into another module, arithmetic on unknowns).
 * For a call into another module, `call` keeps the callee and arguments (a framework validator
 * such as listvalidator.SizeAtMost(1) states a block's size that way).
 */
class Opaque {
  constructor(why, call = null) {
    this.why = why;
    this.call = call;
  }
}

module.exports = { Lazy, force, GoStruct, GoMap, GoSlice, GoFunc, Closure, Ref, TypeValue, Opaque };
