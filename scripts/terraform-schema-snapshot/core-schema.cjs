// Turns an evaluated provider schema into what Terraform itself validates a configuration against
// (its "core" schema): which names are attributes and which are nested blocks, which attributes
// are required, optional or read-only, and how many of each block may appear. The rules are those
// of terraform-plugin-sdk/v2 (helper/schema/core_schema.go) and of terraform-plugin-framework.
'use strict';

const { force, GoStruct, GoMap, GoSlice } = require('./go-values.cjs');
const { resourceSchema, isSdk, typeName } = require('./schema-helpers.cjs');

const SDK_TYPES = {
  TypeString: 'string',
  TypeInt: 'number',
  TypeFloat: 'number',
  TypeBool: 'bool',
  TypeList: 'list',
  TypeSet: 'set',
  TypeMap: 'map',
};
const TIMEOUTS = ['Create', 'Read', 'Update', 'Delete', 'Default'];

const emptyBlock = () => ({ attributes: [], attribute_details: {}, blocks: {} });

/** Adds an attribute: {type, required | optional (+ computed) | computed}. */
function addAttribute(block, name, type, { required, optional, computed }) {
  block.attributes.push(name);
  block.attribute_details[name] = {
    type,
    ...(required && { required: true }),
    ...(optional && { optional: true }),
    ...(computed && { computed: true }),
  };
}

function sorted(block) {
  block.attributes.sort();
  block.attribute_details = Object.fromEntries(
    Object.entries(block.attribute_details).sort(([a], [b]) => a.localeCompare(b)),
  );
  block.blocks = Object.fromEntries(
    Object.entries(block.blocks).sort(([a], [b]) => a.localeCompare(b)),
  );
  return block;
}

/** The core schema of an SDKv2 *schema.Resource (a resource, a data source or a nested block). */
function sdkBlock(resource, evaluator, where, topLevel) {
  const block = emptyBlock();
  const schemaMap = resourceSchema(resource, evaluator);
  if (!(schemaMap instanceof GoMap)) throw new Error(`${where}: no schema map found`);
  for (const [name] of schemaMap.entries) {
    const field = schemaMap.get(name);
    if (!isSdk(field, 'Schema')) throw new Error(`${where}.${name}: not a *schema.Schema`);
    const type = SDK_TYPES[typeName(field.get('Type'))];
    if (!type) throw new Error(`${where}.${name}: unknown type ${typeName(field.get('Type'))}`);
    const required = field.get('Required') === true;
    const optional = field.get('Optional') === true;
    const computed = field.get('Computed') === true;
    const elem = field.get('Elem');
    const mode = typeName(field.get('ConfigMode'));
    const isBlock =
      isSdk(elem, 'Resource') &&
      type !== 'map' &&
      mode !== 'SchemaConfigModeAttr' &&
      (mode === 'SchemaConfigModeBlock' || !(computed && !optional));
    if (!isBlock) {
      // A DefaultFunc can make a required attribute optional; Terraform is told it is optional.
      const defaulted =
        required && field.fields.has('DefaultFunc') && field.get('DefaultFunc') !== null;
      addAttribute(block, name, type, {
        required: required && !defaulted,
        optional: optional || defaulted,
        computed,
      });
      continue;
    }
    const nested = sdkBlock(elem, evaluator, `${where}.${name}`, false);
    let minItems = numberOf(field.get('MinItems'));
    let maxItems = numberOf(field.get('MaxItems'));
    if (required && minItems === 0) minItems = 1;
    if (optional && minItems > 0) minItems = 0;
    if (computed && !optional) minItems = maxItems = 0;
    block.blocks[name] = {
      nesting_mode: type === 'set' ? 'set' : 'list',
      ...(minItems > 0 && { min_items: minItems }),
      ...(maxItems > 0 && { max_items: maxItems }),
      ...nested,
    };
  }
  if (topLevel && !block.attribute_details.id)
    addAttribute(block, 'id', 'string', { optional: true, computed: true });
  const timeouts = topLevel && resource.get('Timeouts');
  if (timeouts instanceof GoStruct && !block.blocks.timeouts && !block.attribute_details.timeouts) {
    const nested = emptyBlock();
    for (const key of TIMEOUTS)
      if (timeouts.fields.has(key) && timeouts.get(key) !== null)
        addAttribute(nested, key.toLowerCase(), 'string', { optional: true });
    block.blocks.timeouts = { nesting_mode: 'single', max_items: 1, ...sorted(nested) };
  }
  return sorted(block);
}

const numberOf = (value) => (typeof value === 'number' ? value : 0);

const FRAMEWORK_ATTRIBUTE_TYPES = {
  StringAttribute: 'string',
  BoolAttribute: 'bool',
  Int32Attribute: 'number',
  Int64Attribute: 'number',
  Float32Attribute: 'number',
  Float64Attribute: 'number',
  NumberAttribute: 'number',
  ListAttribute: 'list',
  ListNestedAttribute: 'list',
  SetAttribute: 'set',
  SetNestedAttribute: 'set',
  MapAttribute: 'map',
  MapNestedAttribute: 'map',
  ObjectAttribute: 'object',
  SingleNestedAttribute: 'object',
  DynamicAttribute: 'dynamic',
};
const FRAMEWORK_BLOCKS = {
  ListNestedBlock: 'list',
  SetNestedBlock: 'set',
  SingleNestedBlock: 'single',
};
const shortType = (struct) => struct.type?.split('.').pop();

/** Size limits a framework block declares with listvalidator/setvalidator. */
function validatorLimits(validators) {
  const limits = {};
  for (const lazy of validators instanceof GoSlice ? validators.items : []) {
    const call = force(lazy)?.call;
    if (!call) continue;
    const [size] = call.args.map(force);
    if (/validator\.SizeAtMost$/.test(call.name)) limits.max_items = size;
    if (/validator\.SizeAtLeast$/.test(call.name)) limits.min_items = size;
    if (/validator\.IsRequired$/.test(call.name)) limits.min_items = 1;
  }
  return limits;
}

/** The core schema of a terraform-plugin-framework schema.Schema or nested block object. */
function frameworkBlock(object, where) {
  const block = emptyBlock();
  const attributes = object.get('Attributes');
  for (const [name] of attributes instanceof GoMap ? attributes.entries : []) {
    const attribute = attributes.get(name);
    const type = FRAMEWORK_ATTRIBUTE_TYPES[shortType(attribute)];
    if (!type) throw new Error(`${where}.${name}: unknown framework attribute ${attribute?.type}`);
    addAttribute(block, name, type, {
      required: attribute.get('Required') === true,
      optional: attribute.get('Optional') === true,
      computed: attribute.get('Computed') === true,
    });
  }
  const blocks = object.get('Blocks');
  for (const [name] of blocks instanceof GoMap ? blocks.entries : []) {
    const nested = blocks.get(name);
    const nesting = FRAMEWORK_BLOCKS[shortType(nested)];
    if (!nesting) throw new Error(`${where}.${name}: unknown framework block ${nested?.type}`);
    const content = nesting === 'single' ? nested : nested.get('NestedObject');
    block.blocks[name] = {
      nesting_mode: nesting,
      ...(nesting === 'single' ? { max_items: 1 } : validatorLimits(nested.get('Validators'))),
      ...frameworkBlock(content, `${where}.${name}`),
    };
  }
  return sorted(block);
}

module.exports = { sdkBlock, frameworkBlock };
