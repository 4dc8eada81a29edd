// Finds where the provider registers each resource and data source type: every service package
// registers its types in init() functions, as registry.Schema{Name, Type, Schema}.Register() (SDKv2)
// or registry.FrameworkDataSource/FrameworkResource{Name, Func}.Register() (plugin framework).
'use strict';

const path = require('node:path');
const { parseStatementsAt } = require('./go-parse.cjs');
const { force, GoStruct, Opaque } = require('./go-values.cjs');

const DATA_SOURCE_TYPES = new Set(['SchemaTypeDataSource', 'SchemaTypeIAMDataSource']);
const escapeRegExp = (name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The name of the Type constant in a registry.Schema literal (its value is an iota, not evaluated). */
function schemaType(literal) {
  const element = literal.elements.find((e) => e.key?.kind === 'ident' && e.key.name === 'Type');
  return element?.value.kind === 'selector' ? element.value.name : undefined;
}

/** The folder holding the provider's Go packages (google, or google-beta in the beta provider). */
function providerRoot(source) {
  const root = ['google-beta', 'google'].find((dir) => source.filesByDir.has(`${dir}/provider`));
  if (!root) throw new Error(`no google/provider or google-beta/provider package in ${source.ref}`);
  return root;
}

/** A framework resource or data source's schema: Func() builds it, its Schema method fills resp.Schema. */
function frameworkSchema(evaluator, func, name) {
  const instance = force(evaluator.apply(func, []));
  const method = instance instanceof GoStruct && evaluator.method(instance, 'Schema');
  if (!method) throw new Error(`${name}: no Schema method on ${instance?.type}`);
  const response = new GoStruct('SchemaResponse');
  evaluator.apply(method, [new Opaque('ctx'), new Opaque('request'), response]);
  return response.get('Schema');
}

/**
 * Registrations of the types in `names`: {name: [{kind, framework, file, schema()}]}, kind being
 * "resources" or "data_sources" and schema() the evaluated *schema.Resource or framework schema.
 */
function findRegistrations(source, evaluator, names) {
  const wanted = new Set(names);
  const root = providerRoot(source);
  const pattern = `Name:[[:space:]]*"(${names.map(escapeRegExp).join('|')})"`;
  const found = {};
  for (const file of source.grep(pattern, `${root}/services`)) {
    const pkg = source.package(path.posix.dirname(file));
    const index = pkg.files.find((f) => f.file === file);
    for (const decl of index.funcs.filter((f) => f.name === 'init' && !f.receiver)) {
      const scope = evaluator.fileScope(pkg, index);
      for (const statement of parseStatementsAt(index.tokens, file, decl.bodyStart, decl.bodyEnd)) {
        const call = statement.kind === 'expression' ? statement.x : null;
        const literal = call?.kind === 'call' && call.fn.kind === 'selector' ? call.fn.x : null;
        if (call?.fn.name !== 'Register' || literal?.kind !== 'composite') continue;
        const registration = force(evaluator.evaluate(literal, scope));
        const name = registration.get('Name');
        if (!wanted.has(name)) continue;
        const kindOf = registration.type.split('.').pop();
        let entry;
        if (kindOf === 'Schema')
          entry = {
            kind: DATA_SOURCE_TYPES.has(schemaType(literal)) ? 'data_sources' : 'resources',
            framework: false,
            schema: () => registration.get('Schema'),
          };
        else if (kindOf === 'FrameworkDataSource' || kindOf === 'FrameworkResource')
          entry = {
            kind: kindOf === 'FrameworkDataSource' ? 'data_sources' : 'resources',
            framework: true,
            schema: () => frameworkSchema(evaluator, registration.get('Func'), name),
          };
        else continue; // list and ephemeral resources are not configuration blocks
        (found[name] ??= []).push({ ...entry, file });
      }
    }
  }
  return found;
}

module.exports = { findRegistrations, providerRoot };
