import { randomBytes } from 'node:crypto';
import { isObject } from '../merge-patch';
import { metadataCauses, type FieldCause } from '../metadata-rules';
import { metadataOf, type Obj } from '../object-book';
import { badRequest, invalid, KubeError, notFound } from '../status';
import { apiVersionOf, qualifiedKind, type ResourceType } from './resource-type';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const GENERATED_SUFFIX = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * The request body with its apiVersion and kind, which must be the ones of the URL (a custom resource is
 * decoded as unstructured data, so a mismatch is a 400 from the decoder, as on the real server).
 */
export function withTypeMeta(type: ResourceType, version: string, given: Obj): Obj {
  const expected = apiVersionOf(type, version);
  const body = type.typeMetaFromUrl
    ? { ...given, apiVersion: given.apiVersion || expected, kind: given.kind || type.kind }
    : given;
  if (typeof body.kind !== 'string' || body.kind === '')
    throw badRequest(`Object 'Kind' is missing in the request body (expected ${type.kind})`);
  if (typeof body.apiVersion !== 'string' || body.apiVersion === '')
    throw badRequest(`Object 'apiVersion' is missing in the request body (expected ${expected})`);
  if (body.apiVersion !== expected)
    throw badRequest(
      `the API version in the data (${body.apiVersion}) does not match the expected API version (${expected})`,
    );
  if (body.kind !== type.kind)
    throw badRequest(
      `the kind in the data (${body.kind}) does not match the expected kind (${type.kind})`,
    );
  return body;
}

/**
 * The object's metadata for this request: the URL's namespace (400 when the body names another;
 * dropped at cluster scope), a name from `generateName` when none is given.
 */
export function placeMetadata(type: ResourceType, body: Obj, namespace: string | undefined): Obj {
  const meta = { ...metadataOf(body) };
  if (type.namespaced) {
    if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace)
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    meta.namespace = namespace ?? '';
  } else delete meta.namespace;
  if ((meta.name === undefined || meta.name === '') && typeof meta.generateName === 'string') {
    const suffix = [...randomBytes(5)].map((b) => GENERATED_SUFFIX[b % 27]).join('');
    meta.name = `${meta.generateName}${suffix}`;
  }
  return { ...body, metadata: meta };
}

/** Name (DNS-1123 subdomain), labels and annotations, as ValidateObjectMeta checks them. */
export function objectMetaCauses(object: Obj): FieldCause[] {
  const meta = metadataOf(object);
  const causes: FieldCause[] = [];
  const name = meta.name;
  if (typeof name !== 'string' || name === '')
    causes.push({
      field: 'metadata.name',
      message: 'Required value: name or generateName is required',
      reason: 'FieldValueRequired',
    });
  else if (name.length > 253 || !DNS_SUBDOMAIN.test(name))
    causes.push({
      field: 'metadata.name',
      message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    });
  causes.push(...metadataCauses(meta));
  return causes;
}

/** Throws the 422 for `causes`, naming the kind as the real server does (`Kind.group "name"`). */
export function throwIfInvalid(type: ResourceType, object: Obj, causes: FieldCause[]): void {
  if (causes.length === 0) return;
  const name = metadataOf(object).name;
  const error = invalid(qualifiedKind(type), typeof name === 'string' ? name : '', causes);
  throw new KubeError({
    ...error.status,
    details: { ...error.status.details, group: type.group, kind: type.kind },
  });
}

/** 404 for a namespace that does not exist, worded as the real server words it. */
export const namespaceNotFound = (namespace: string) => notFound('namespaces', namespace);

/** The labels of an object (empty when it has none). */
export function labelsOf(object: Obj | undefined): Record<string, string> {
  const labels = object ? metadataOf(object).labels : undefined;
  return isObject(labels) ? (labels as Record<string, string>) : {};
}
