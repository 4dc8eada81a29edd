// Evaluates the Go code that builds a provider's schemas: expressions of any form and the
// statements of the functions they call, across the provider's packages. Calls into other modules
// (the SDK, validators) stay opaque; an if whose condition is unknown, a switch and a non-range loop
// are skipped and recorded; the helpers that derive data source schemas (a switch on field types)
// are replaced by their JavaScript equivalent (schema-helpers.cjs).
'use strict';

const { parseExpressionAt, parseStatementsAt } = require('./go-parse.cjs');
const {
  Lazy,
  force,
  GoStruct,
  GoMap,
  GoSlice,
  GoFunc,
  Closure,
  Ref,
  TypeValue,
  Opaque,
} = require('./go-values.cjs');

const PREDECLARED_TYPES = new Set([
  'bool',
  'string',
  'int',
  'int8',
  'int16',
  'int32',
  'int64',
  'uint',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
  'float32',
  'float64',
  'byte',
  'rune',
  'error',
  'any',
]);
const MAX_CALL_DEPTH = 100;

// Timeouts are written as time.Duration(n) * time.Minute; knowing these lets `if timeout > 0` run.
const NANOSECOND = 1;
const TIME = {
  Duration: new TypeValue('time.Duration', { kind: 'name', pkg: 'time', name: 'Duration' }),
  Nanosecond: NANOSECOND,
  Microsecond: 1e3 * NANOSECOND,
  Millisecond: 1e6 * NANOSECOND,
  Second: 1e9 * NANOSECOND,
  Minute: 60e9 * NANOSECOND,
  Hour: 3600e9 * NANOSECOND,
};

class Scope {
  constructor(parent, file, pkg) {
    this.parent = parent;
    this.file = file;
    this.pkg = pkg;
    this.vars = new Map();
  }

  /** The innermost scope declaring `name`, or null. */
  find(name) {
    if (this.vars.has(name)) return this;
    return this.parent ? this.parent.find(name) : null;
  }
}

class Evaluator {
  /** `helpers`: replacements for functions, by "packageName.FunctionName". */
  constructor(source, helpers) {
    this.source = source;
    this.helpers = helpers;
    this.depth = 0;
    /** Control flow skipped in a function whose result was used: "file:line what (function)". */
    this.skipped = new Set();
    this.statementCache = new Map();
    this.valueCache = new Map();
  }

  /** A scope at the top level of `file` (an index from go-parse.cjs) in package `pkg`. */
  fileScope(pkg, file) {
    return new Scope(null, file, pkg);
  }

  /** A package-level function, var or const of `pkg`; undefined when it declares none. */
  member(pkg, name) {
    const fn = pkg.funcs.get(name);
    if (fn) return new GoFunc(fn);
    const value = pkg.values.get(name);
    if (!value) return undefined;
    const key = `${pkg.dir}.${name}`;
    if (!this.valueCache.has(key)) {
      const scope = this.fileScope(pkg, value.file);
      this.valueCache.set(
        key,
        new Lazy(() =>
          value.range
            ? this.evaluate(
                parseExpressionAt(value.file.tokens, value.file.file, ...value.range),
                scope,
              )
            : new Opaque(`${name} has no initializer`),
        ),
      );
    }
    return this.valueCache.get(key);
  }

  /** The qualified name of a named type written in `scope`'s file. */
  qualify(type, scope) {
    if (type.kind !== 'name') return type.kind;
    if (type.pkg) return `${scope.file.imports.get(type.pkg) ?? type.pkg}.${type.name}`;
    return PREDECLARED_TYPES.has(type.name) ? type.name : `${scope.pkg.importPath}.${type.name}`;
  }

  evaluate(node, scope, elidedType = null) {
    switch (node.kind) {
      case 'number':
      case 'string':
        return node.value;
      case 'ident':
        return this.identifier(node.name, scope);
      case 'selector':
        return this.selector(node, scope);
      case 'paren':
      case 'assert':
        return this.evaluate(node.x, scope);
      case 'unary':
        return this.unary(node, scope, elidedType);
      case 'binary':
        return this.binary(node, scope);
      case 'call':
        return this.call(node, scope);
      case 'index': {
        const base = force(this.evaluate(node.x, scope));
        if (base instanceof GoFunc) return base; // a generic instantiation
        const key = force(this.evaluate(node.index, scope));
        if (base instanceof GoMap) return base.entries.get(key) ?? null;
        if (base instanceof GoSlice && typeof key === 'number') return base.items[key] ?? null;
        return new Opaque('index');
      }
      case 'composite':
        return this.composite(node, scope, elidedType);
      case 'funcLiteral':
        return new Closure(node, scope);
      case 'type':
        return new TypeValue(this.qualify(node.type, scope), node.type);
      default:
        return new Opaque(node.kind);
    }
  }

  identifier(name, scope) {
    const owner = scope.find(name);
    if (owner) return owner.vars.get(name);
    const member = this.member(scope.pkg, name);
    if (member !== undefined) return member;
    if (name === 'true') return true;
    if (name === 'false') return false;
    if (name === 'nil') return null;
    if (PREDECLARED_TYPES.has(name)) return new TypeValue(name, { kind: 'name', name });
    return new Ref(`${scope.pkg.importPath}.${name}`);
  }

  selector(node, scope) {
    if (
      node.x.kind === 'ident' &&
      !scope.find(node.x.name) &&
      scope.file.imports.has(node.x.name)
    ) {
      const importPath = scope.file.imports.get(node.x.name);
      const dir = this.source.dirOf(importPath);
      const member = dir && this.member(this.source.package(dir), node.name);
      if (member !== undefined && member !== null) return member;
      if (importPath === 'time' && node.name in TIME) return TIME[node.name];
      return new Ref(`${importPath}.${node.name}`);
    }
    const base = force(this.evaluate(node.x, scope));
    if (base instanceof GoStruct) {
      if (base.fields.has(node.name)) return base.fields.get(node.name);
      const method = this.method(base, node.name);
      return method ?? null;
    }
    if (base instanceof Ref) return new Ref(`${base.name}.${node.name}`);
    return new Opaque(`.${node.name}`);
  }

  /** A method of a struct declared in the provider's source, bound to the struct. */
  method(struct, name) {
    const dot = struct.type?.lastIndexOf('.') ?? -1;
    const dir = dot > 0 && this.source.dirOf(struct.type.slice(0, dot));
    if (!dir) return undefined;
    const entry = this.source.package(dir).methods.get(`${struct.type.slice(dot + 1)}.${name}`);
    return entry && new GoFunc(entry, struct);
  }

  unary(node, scope, elidedType) {
    if (node.op === '&' || node.op === '*') return this.evaluate(node.x, scope, elidedType);
    const x = force(this.evaluate(node.x, scope));
    if (node.op === '!' && typeof x === 'boolean') return !x;
    if (node.op === '-' && typeof x === 'number') return -x;
    if (node.op === '+' && typeof x === 'number') return x;
    return new Opaque(`unary ${node.op}`);
  }

  binary(node, scope) {
    const x = force(this.evaluate(node.x, scope));
    const y = force(this.evaluate(node.y, scope));
    const known = (v) => ['number', 'string', 'boolean'].includes(typeof v) || v === null;
    if (
      (node.op === '==' || node.op === '!=') &&
      (x == null || y == null) &&
      !(x instanceof Opaque || y instanceof Opaque)
    )
      return (x == null && y == null) === (node.op === '==');
    if (!known(x) || !known(y)) return new Opaque(`binary ${node.op}`);
    switch (node.op) {
      case '+':
        return x + y;
      case '-':
        return x - y;
      case '*':
        return x * y;
      case '/':
        return typeof x === 'number' && Number.isInteger(x) && Number.isInteger(y)
          ? Math.trunc(x / y)
          : x / y;
      case '==':
        return x === y;
      case '!=':
        return x !== y;
      case '<':
        return x < y;
      case '<=':
        return x <= y;
      case '>':
        return x > y;
      case '>=':
        return x >= y;
      case '&&':
        return x && y;
      case '||':
        return x || y;
      default:
        return new Opaque(`binary ${node.op}`);
    }
  }

  composite(node, scope, elidedType) {
    let type = node.type ?? elidedType;
    while (type?.kind === 'pointer') type = type.elem;
    if (type?.kind === 'map') {
      const map = new GoMap();
      for (const element of node.elements) {
        const key = force(this.evaluate(element.key, scope));
        map.entries.set(key, new Lazy(() => this.evaluate(element.value, scope, type.elem)));
      }
      return map;
    }
    if (type?.kind === 'slice') {
      return new GoSlice(
        node.elements.map(
          (element) => new Lazy(() => this.evaluate(element.value, scope, type.elem)),
        ),
      );
    }
    const struct = new GoStruct(type ? this.qualify(type, scope) : null);
    for (const element of node.elements)
      if (element.key?.kind === 'ident')
        struct.fields.set(element.key.name, new Lazy(() => this.evaluate(element.value, scope)));
    return struct;
  }

  call(node, scope) {
    if (
      node.fn.kind === 'ident' &&
      !scope.find(node.fn.name) &&
      !this.member(scope.pkg, node.fn.name)
    ) {
      const builtin = this.builtin(node, scope);
      if (builtin !== undefined) return builtin;
    }
    const callee = force(this.evaluate(node.fn, scope));
    const args = node.args.map((arg) => this.evaluate(arg, scope));
    if (callee instanceof GoFunc) {
      const { decl, pkg } = callee.entry;
      const helper = !callee.receiver && this.helpers[`${pkg.name}.${decl.name}`];
      if (helper) return helper(spread(args, node.spread).map(force));
      return this.invoke(callee.entry, args, node.spread, callee.receiver);
    }
    if (callee instanceof Closure) return this.invokeClosure(callee, args, node.spread);
    if (callee instanceof TypeValue) return args[0];
    if (callee instanceof Ref)
      return new Opaque(`call ${callee.name}`, { name: callee.name, args });
    return new Opaque(`call of ${typeof callee}`);
  }

  /** Go's built-in functions that schema code uses; undefined for any other name. */
  builtin(node, scope) {
    const args = () => node.args.map((arg) => force(this.evaluate(arg, scope)));
    switch (node.fn.name) {
      case 'make': {
        const type = node.args[0].kind === 'type' ? node.args[0].type : null;
        return type?.kind === 'map' ? new GoMap() : new GoSlice();
      }
      case 'new':
        return new GoStruct(
          node.args[0].kind === 'type' ? null : this.qualify(typeOf(node.args[0]), scope),
        );
      case 'append': {
        const [slice, ...rest] = node.args.map((arg) => this.evaluate(arg, scope));
        const base = force(slice);
        const items = base instanceof GoSlice ? [...base.items] : [];
        return new GoSlice([...items, ...spread(rest, node.spread)]);
      }
      case 'delete': {
        const [map, key] = args();
        if (map instanceof GoMap) map.entries.delete(key);
        return null;
      }
      case 'len':
      case 'cap':
      case 'panic':
      case 'copy':
      case 'min':
      case 'max':
        return new Opaque(node.fn.name);
      default:
        return undefined;
    }
  }

  invoke(entry, args, isSpread, receiver) {
    const { decl, file, pkg } = entry;
    const scope = new Scope(null, file, pkg);
    if (decl.receiver?.name) scope.vars.set(decl.receiver.name, receiver);
    bind(scope, decl.params, args, isSpread);
    const key = `${file.file}:${decl.bodyStart}`;
    if (!this.statementCache.has(key))
      this.statementCache.set(
        key,
        decl.bodyStart === null
          ? []
          : parseStatementsAt(file.tokens, file.file, decl.bodyStart, decl.bodyEnd),
      );
    return this.run(this.statementCache.get(key), scope, `${pkg.name}.${decl.name}`);
  }

  invokeClosure(closure, args, isSpread) {
    const { node } = closure;
    const scope = new Scope(closure.scope, closure.scope.file, closure.scope.pkg);
    bind(scope, node.params, args, isSpread);
    const statements = parseStatementsAt(
      node.tokens,
      scope.file.file,
      node.bodyStart,
      node.bodyEnd,
    );
    return this.run(statements, scope, 'func literal');
  }

  /** Runs a function body; its first return value (null when it returns none). */
  run(statements, scope, where) {
    if (++this.depth > MAX_CALL_DEPTH)
      throw new Error(`call depth over ${MAX_CALL_DEPTH} in ${where}`);
    try {
      const outcome = this.block(statements, scope, where);
      return outcome ? outcome.value : null;
    } finally {
      this.depth--;
    }
  }

  /** Runs statements; {value} when one of them returned, undefined when they ran to the end. */
  block(statements, scope, where) {
    const note = (statement, what = statement.what ?? statement.kind) =>
      this.skipped.add(`${scope.file.file}:${statement.line} ${what} (${where})`);
    for (const statement of statements) {
      let outcome;
      if (statement.kind === 'return')
        return {
          value: statement.values.length > 0 ? this.evaluate(statement.values[0], scope) : null,
        };
      if (statement.kind === 'skipped') note(statement);
      else if (statement.kind === 'var')
        statement.names.forEach((name, i) =>
          scope.vars.set(
            name,
            statement.values[i] ? this.evaluate(statement.values[i], scope) : null,
          ),
        );
      else if (statement.kind === 'assign') this.assign(statement, scope);
      else if (statement.kind === 'expression') this.evaluate(statement.x, scope);
      else if (statement.kind === 'if') {
        const inner = new Scope(scope, scope.file, scope.pkg);
        if (statement.init) this.assign(statement.init, inner);
        const condition = force(this.evaluate(statement.condition, inner));
        if (typeof condition !== 'boolean') note(statement, 'if with an unknown condition');
        else outcome = this.block(condition ? statement.then : statement.otherwise, inner, where);
      } else if (statement.kind === 'range') outcome = this.range(statement, scope, where, note);
      if (outcome) return outcome;
    }
    return undefined;
  }

  /** A for-range loop over a slice or map the evaluator knows; skipped (and noted) otherwise. */
  range(statement, scope, where, note) {
    const x = force(this.evaluate(statement.x, scope));
    let pairs;
    if (x instanceof GoSlice) pairs = x.items.map((item, i) => [i, item]);
    else if (x instanceof GoMap) pairs = [...x.entries];
    else return (note(statement, 'range over an unknown value'), undefined);
    for (const pair of pairs) {
      const inner = new Scope(scope, scope.file, scope.pkg);
      statement.lhs.forEach((target, i) => {
        if (target.kind !== 'ident' || target.name === '_') return;
        const owner = statement.define ? inner : (scope.find(target.name) ?? inner);
        owner.vars.set(target.name, pair[i]);
      });
      const outcome = this.block(statement.body, inner, where);
      if (outcome) return outcome;
    }
    return undefined;
  }

  assign(statement, scope) {
    if (statement.op !== '=' && statement.op !== ':=') return;
    const values =
      statement.rhs.length === statement.lhs.length
        ? statement.rhs.map((rhs) => this.evaluate(rhs, scope))
        : statement.lhs.map(() => new Opaque('multiple return values'));
    statement.lhs.forEach((target, i) => {
      const value = values[i];
      if (target.kind === 'ident') {
        if (target.name === '_') return;
        const owner = statement.op === ':=' ? scope : (scope.find(target.name) ?? scope);
        owner.vars.set(target.name, value);
      } else if (target.kind === 'selector') {
        const base = force(this.evaluate(target.x, scope));
        if (base instanceof GoStruct) base.fields.set(target.name, value);
      } else if (target.kind === 'index') {
        const base = force(this.evaluate(target.x, scope));
        if (base instanceof GoMap)
          base.entries.set(force(this.evaluate(target.index, scope)), value);
      }
    });
  }

  /** Calls a function value (GoFunc or Closure) with already computed arguments. */
  apply(fn, args) {
    if (fn instanceof GoFunc) return this.invoke(fn.entry, args, false, fn.receiver);
    if (fn instanceof Closure) return this.invokeClosure(fn, args, false);
    return new Opaque('apply');
  }
}

/** Arguments with a final `xs...` spread into separate values. */
function spread(args, isSpread) {
  if (!isSpread || args.length === 0) return args;
  const last = force(args[args.length - 1]);
  return [...args.slice(0, -1), ...(last instanceof GoSlice ? last.items : [])];
}

function bind(scope, params, args, isSpread) {
  params.forEach((param, i) => {
    if (!param.name) return;
    if (param.variadic) scope.vars.set(param.name, isSpread ? args[i] : new GoSlice(args.slice(i)));
    else scope.vars.set(param.name, args[i] ?? null);
  });
}

function typeOf(node) {
  if (node.kind === 'ident') return { kind: 'name', name: node.name };
  if (node.kind === 'selector' && node.x.kind === 'ident')
    return { kind: 'name', pkg: node.x.name, name: node.name };
  return { kind: 'unknown' };
}

module.exports = { Evaluator };
