import { isObject, type Json } from '../merge-patch';
import type { FieldCause } from '../metadata-rules';

/** The subset of an OpenAPI v3 schema (a CRD's structural schema) this emulator enforces. */
export interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema | boolean;
  enum?: Json[];
  nullable?: boolean;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
}

/** The value's type as kube-openapi's validator names it in messages. */
export function typeName(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

const matchesType = (type: string, value: Json): boolean => {
  const actual = typeName(value);
  return actual === type || (type === 'number' && actual === 'integer');
};

/**
 * Drops what the schema does not describe, as the API server prunes custom resources: unknown
 * object fields (unless `x-kubernetes-preserve-unknown-fields` or `additionalProperties`), and
 * nulls where the schema is not nullable. Returns the pruned value and the dropped field paths
 * (which `fieldValidation=Strict` turns into an error). `apiVersion`, `kind` and `metadata` at
 * the root are the server's and are never pruned here.
 */
export function prune(
  schema: Schema,
  value: Json,
  path: string,
  dropped: string[] = [],
  root = true,
): { value: Json; dropped: string[] } {
  if (isObject(value)) {
    if (schema['x-kubernetes-preserve-unknown-fields'] && !schema.properties)
      return { value, dropped };
    const result: { [key: string]: Json } = {};
    for (const [key, child] of Object.entries(value)) {
      const childPath = path ? `${path}.${key}` : key;
      if (root && ['apiVersion', 'kind', 'metadata'].includes(key)) {
        result[key] = child;
        continue;
      }
      const childSchema =
        schema.properties?.[key] ??
        (isObject(schema.additionalProperties as Json)
          ? (schema.additionalProperties as Schema)
          : undefined);
      if (!childSchema) {
        if (schema['x-kubernetes-preserve-unknown-fields'] || schema.additionalProperties === true)
          result[key] = child;
        else dropped.push(childPath);
        continue;
      }
      if (child === null && !childSchema.nullable) continue;
      result[key] = prune(childSchema, child, childPath, dropped, false).value;
    }
    return { value: result, dropped };
  }
  if (Array.isArray(value) && schema.items) {
    const items = schema.items;
    return {
      value: value.map(
        (item, index) => prune(items, item, `${path}[${index}]`, dropped, false).value,
      ),
      dropped,
    };
  }
  return { value, dropped };
}

/**
 * The schema violations of `value`, worded as the API server words them (field paths from the
 * object's root, e.g. `spec.pullSecret.name: Required value`).
 */
export function validate(schema: Schema, value: Json, path = '', root = true): FieldCause[] {
  const causes: FieldCause[] = [];
  const at = path || '<root>';
  if (schema.type && !schema['x-kubernetes-int-or-string'] && !matchesType(schema.type, value)) {
    if (!(value === null && schema.nullable))
      causes.push({
        field: at,
        message: `Invalid value: "${typeName(value)}": ${at} in body must be of type ${schema.type}: "${typeName(value)}"`,
        reason: 'FieldValueTypeInvalid',
      });
    return causes;
  }
  if (schema['x-kubernetes-int-or-string'] && !['integer', 'string'].includes(typeName(value)))
    causes.push({
      field: at,
      message: `Invalid value: "${typeName(value)}": ${at} in body must be of type integer,string: "${typeName(value)}"`,
      reason: 'FieldValueTypeInvalid',
    });
  if (
    schema.enum &&
    !schema.enum.some((allowed) => JSON.stringify(allowed) === JSON.stringify(value))
  )
    causes.push({
      field: at,
      message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`,
      reason: 'FieldValueNotSupported',
    });
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength)
      causes.push({
        field: at,
        message: `Invalid value: ${JSON.stringify(value)}: ${at} in body should be at least ${schema.minLength} chars long`,
      });
    if (schema.maxLength !== undefined && value.length > schema.maxLength)
      causes.push({
        field: at,
        message: `Too long: may not be more than ${schema.maxLength} bytes`,
        reason: 'FieldValueTooLong',
      });
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum)
      causes.push({
        field: at,
        message: `Invalid value: ${value}: ${at} in body should be greater than or equal to ${schema.minimum}`,
      });
    if (schema.maximum !== undefined && value > schema.maximum)
      causes.push({
        field: at,
        message: `Invalid value: ${value}: ${at} in body should be less than or equal to ${schema.maximum}`,
      });
  }
  if (isObject(value)) {
    for (const required of schema.required ?? [])
      if (!(required in value) || value[required] === null)
        causes.push({
          field: path ? `${path}.${required}` : required,
          message: 'Required value',
          reason: 'FieldValueRequired',
        });
    for (const [key, child] of Object.entries(value)) {
      if (root && ['apiVersion', 'kind', 'metadata'].includes(key)) continue;
      const childSchema =
        schema.properties?.[key] ??
        (isObject(schema.additionalProperties as Json)
          ? (schema.additionalProperties as Schema)
          : undefined);
      if (childSchema)
        causes.push(...validate(childSchema, child, path ? `${path}.${key}` : key, false));
    }
  }
  if (Array.isArray(value) && schema.items) {
    const items = schema.items;
    value.forEach((item, index) =>
      causes.push(...validate(items, item, `${path}[${index}]`, false)),
    );
  }
  return causes;
}

/**
 * The structural problems of a CRD version's schema (what `apiextensions` refuses at CRD
 * creation): a root of `type: object`, and a `type` on every property that does not preserve
 * unknown fields or is int-or-string.
 */
export function schemaProblems(schema: Json, path: string): FieldCause[] {
  if (!isObject(schema))
    return [
      {
        field: path,
        message: 'Required value: schemas are required',
        reason: 'FieldValueRequired',
      },
    ];
  const causes: FieldCause[] = [];
  if (schema.type !== 'object')
    causes.push(
      schema.type === undefined
        ? {
            field: `${path}.type`,
            message: 'Required value: must not be empty at the root',
            reason: 'FieldValueRequired',
          }
        : {
            field: `${path}.type`,
            message: `Unsupported value: ${JSON.stringify(schema.type)}: supported values: "object"`,
            reason: 'FieldValueNotSupported',
          },
    );
  const walk = (node: Json, at: string) => {
    if (!isObject(node)) return;
    if (
      node.type === undefined &&
      node['x-kubernetes-int-or-string'] !== true &&
      node['x-kubernetes-preserve-unknown-fields'] !== true
    )
      causes.push({
        field: `${at}.type`,
        message: 'Required value: must not be empty for specified object fields',
        reason: 'FieldValueRequired',
      });
    if (isObject(node.properties))
      for (const [key, child] of Object.entries(node.properties))
        walk(child, `${at}.properties[${key}]`);
    if (node.items !== undefined) walk(node.items, `${at}.items`);
    if (isObject(node.additionalProperties))
      walk(node.additionalProperties, `${at}.additionalProperties`);
  };
  if (isObject(schema.properties))
    for (const [key, child] of Object.entries(schema.properties))
      walk(child, `${path}.properties[${key}]`);
  return causes;
}
