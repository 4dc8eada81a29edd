import { isObject, type Json } from '../merge-patch';
import { metadataOf, type Obj } from '../object-book';
import { badRequest } from '../status';
import { throwIfInvalid } from '../generic/object-meta';
import type { ResourceType } from '../generic/resource-type';
import { normaliseCrd } from './crd-rules';
import { prune, validate, type Schema } from './structural-schema';

const timestamp = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/** `apiextensions.k8s.io/v1` CustomResourceDefinition, served generically. */
export const CRD_TYPE: ResourceType = {
  group: 'apiextensions.k8s.io',
  versions: ['v1'],
  plural: 'customresourcedefinitions',
  singular: 'customresourcedefinition',
  kind: 'CustomResourceDefinition',
  listKind: 'CustomResourceDefinitionList',
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  namespaced: false,
  typeMetaFromUrl: true,
  statusSubresource: true,
  normalise: (object, previous) => normaliseCrd(CRD_TYPE, timestamp)(object, previous),
};

const strings = (value: Json | undefined): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/** The versions of a CRD as objects (name, served, schema, subresources). */
function versionsOf(crd: Obj): Obj[] {
  const spec = isObject(crd.spec) ? crd.spec : {};
  return (Array.isArray(spec.versions) ? spec.versions : []).filter(isObject);
}

/**
 * A custom resource checked against its version's schema: unknown fields pruned (or, with
 * `fieldValidation=Strict`, refused with 400 as the real decoder does), then types and required
 * fields checked (422 with field paths).
 */
function normaliseCustom(type: ResourceType, crd: Obj) {
  return (object: Obj, _previous: Obj | undefined, strict: boolean): Obj => {
    const version = String(object.apiVersion ?? '')
      .split('/')
      .pop();
    const served = versionsOf(crd).find((v) => v.name === version);
    const schema = (isObject(served?.schema) ? served.schema.openAPIV3Schema : undefined) as Json;
    if (!isObject(schema)) return object;
    const { value, dropped } = prune(schema as Schema, object, '');
    if (strict && dropped.length > 0)
      throw badRequest(
        `strict decoding error: ${dropped.map((field) => `unknown field "${field}"`).join(', ')}`,
      );
    const pruned = value as Obj;
    throwIfInvalid(type, pruned, validate(schema as Schema, pruned));
    return pruned;
  };
}

/** The kind a stored, established CRD registers, with its served versions. */
export function customTypeOf(crd: Obj): ResourceType | undefined {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const names = isObject(spec.names) ? spec.names : {};
  const served = versionsOf(crd).filter((v) => v.served === true);
  if (typeof spec.group !== 'string' || typeof names.plural !== 'string' || served.length === 0)
    return undefined;
  const versions = served.map((v) => String(v.name));
  const type: ResourceType = {
    group: spec.group,
    versions,
    plural: names.plural,
    singular: String(names.singular ?? ''),
    kind: String(names.kind ?? ''),
    listKind: String(names.listKind ?? `${String(names.kind)}List`),
    shortNames: strings(names.shortNames),
    categories: strings(names.categories),
    namespaced: spec.scope === 'Namespaced',
    typeMetaFromUrl: false,
    statusSubresource: served.some(
      (v) => isObject(v.subresources) && v.subresources.status !== undefined,
    ),
    normalise: (object, previous, strict) => normaliseCustom(type, crd)(object, previous, strict),
  };
  return type;
}

/** The name of the CRD that registers `type` (`plural.group`). */
export const crdNameOf = (crd: Obj): string => String(metadataOf(crd).name);
