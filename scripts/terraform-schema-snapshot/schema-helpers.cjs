// The provider's tpgresource helpers that build data source schemas from resource schemas. They
// loop over maps, which the evaluator does not run, so they are re-implemented here from what they
// do (google/tpgresource/datasource_helpers.go and utils.go in the provider).
'use strict';

const { force, GoStruct, GoMap } = require('./go-values.cjs');

const SDK_SCHEMA = 'github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema';
const isSdk = (value, name) => value instanceof GoStruct && value.type === `${SDK_SCHEMA}.${name}`;
const typeName = (value) => force(value)?.name?.split('.').pop();

/** A resource's attribute map, whether literal (Schema) or built by SchemaFunc. */
function resourceSchema(resource, evaluator) {
  const literal = resource.get('Schema');
  if (literal instanceof GoMap) return literal;
  const func = resource.get('SchemaFunc');
  return func ? force(evaluator.apply(func, [])) : undefined;
}

/** Every field computed, none required: what a data source reads back (DatasourceSchemaFromResourceSchema). */
function datasourceSchema(schemaMap, evaluator) {
  const out = new GoMap();
  for (const [name, lazy] of schemaMap.entries) {
    const field = force(lazy);
    const copy = new GoStruct(`${SDK_SCHEMA}.Schema`);
    copy.fields.set('Computed', true);
    copy.fields.set('Required', false);
    copy.fields.set('Type', field.fields.get('Type'));
    const elem = field.get('Elem');
    const type = typeName(field.get('Type'));
    if ((type === 'TypeList' || type === 'TypeSet') && isSdk(elem, 'Resource')) {
      const nested = new GoStruct(`${SDK_SCHEMA}.Resource`);
      nested.fields.set('Schema', datasourceSchema(resourceSchema(elem, evaluator), evaluator));
      copy.fields.set('Elem', nested);
    } else copy.fields.set('Elem', elem);
    out.entries.set(name, copy);
  }
  return out;
}

/** FixDatasourceSchemaFlags: `keys` become required (or optional) arguments. */
function fixFlags(schemaMap, required, keys) {
  for (const key of keys) {
    const field = schemaMap.get(key);
    if (!(field instanceof GoStruct))
      throw new Error(`data source field ${key} is not in the schema`);
    field.fields.set('Computed', false);
    field.fields.set('Optional', !required);
    field.fields.set('Required', required);
  }
  return null;
}

/** Helpers by "packageName.FunctionName", for the Evaluator. */
function schemaHelpers(evaluator) {
  return {
    'tpgresource.DatasourceSchemaFromResourceSchema': ([schemaMap]) =>
      datasourceSchema(schemaMap, evaluator),
    'tpgresource.FixDatasourceSchemaFlags': ([schemaMap, required, ...keys]) =>
      fixFlags(schemaMap, required, keys),
    'tpgresource.AddRequiredFieldsToSchema': ([schemaMap, ...keys]) =>
      fixFlags(schemaMap, true, keys),
    'tpgresource.AddOptionalFieldsToSchema': ([schemaMap, ...keys]) =>
      fixFlags(schemaMap, false, keys),
    'tpgresource.DeleteFieldsFromSchema': ([schemaMap, ...keys]) => {
      for (const key of keys) schemaMap.entries.delete(key);
      return null;
    },
    'tpgresource.MergeSchemas': ([a, b]) => new GoMap(new Map([...a.entries, ...b.entries])),
  };
}

module.exports = { schemaHelpers, resourceSchema, isSdk, typeName, SDK_SCHEMA };
