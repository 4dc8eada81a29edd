import { isObject, type Json } from './merge-patch';
import { metadataCauses } from './metadata-rules';
import type { KubeError } from './status';
import { badRequest, invalid } from './status';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DATA_KEY = /^[-._a-zA-Z0-9]+$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MAX_SECRET_BYTES = 1024 * 1024;
const DOCKER_CONFIG_JSON_KEY = '.dockerconfigjson';
const REDACTED = '"<secret contents redacted>"';

type Cause = { field: string; message: string; reason?: string };

export function validateNamespaceName(name: unknown): KubeError | undefined {
  if (typeof name !== 'string' || name === '') {
    return invalid('Namespace', '', [
      {
        field: 'metadata.name',
        message: 'Required value: name or generateName is required',
        reason: 'FieldValueRequired',
      },
    ]);
  }
  if (name.length > 63 || !DNS_LABEL.test(name)) {
    return invalid('Namespace', name, [
      {
        field: 'metadata.name',
        message: `Invalid value: "${name}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'`,
      },
    ]);
  }
  return undefined;
}

/**
 * Normalises and validates a Namespace: a DNS-1123 label name, valid labels and annotations;
 * `spec.finalizers` defaults to ["kubernetes"]; `status` (phase Active, or Terminating once
 * deleted) and `deletionTimestamp` are the server's.
 */
export function normaliseNamespace(
  body: { [key: string]: Json },
  previous?: { [key: string]: Json },
): { [key: string]: Json } {
  const metadata = isObject(body.metadata) ? body.metadata : {};
  const name = metadata.name;
  const problem = validateNamespaceName(name);
  if (problem) throw problem;
  const causes = metadataCauses(metadata);
  if (causes.length > 0) throw invalid('Namespace', name as string, causes);
  const spec = isObject(body.spec) ? body.spec : {};
  // Only the server sets deletionTimestamp (a DELETE). A create never carries one, and an update
  // can never remove or change it (apiserver pkg/registry/rest/create.go `BeforeCreate`,
  // update.go `BeforeUpdate`).
  const { deletionTimestamp: _sent, ...given } = metadata;
  const deleting =
    previous && isObject(previous.metadata) ? previous.metadata.deletionTimestamp : undefined;
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { ...given, ...(deleting !== undefined ? { deletionTimestamp: deleting } : {}) },
    spec: { finalizers: ['kubernetes'], ...spec },
    status: previous && isObject(previous.status) ? previous.status : { phase: 'Active' },
  };
}

/**
 * Normalises and validates a Secret as the API server does: stringData folds into data, data
 * values must be base64, `kubernetes.io/dockerconfigjson` needs a `.dockerconfigjson` key holding
 * a JSON object, type is immutable, and `immutable: true` freezes data. Values never appear in
 * messages ("<secret contents redacted>").
 */
export function normaliseSecret(
  body: { [key: string]: Json },
  previous?: { [key: string]: Json },
): { [key: string]: Json } {
  const metadata = isObject(body.metadata) ? body.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  const secret: { [key: string]: Json } = { ...body, apiVersion: 'v1', kind: 'Secret' };
  const data: { [key: string]: Json } = isObject(body.data) ? { ...body.data } : {};
  if (isObject(body.stringData)) {
    for (const [k, v] of Object.entries(body.stringData))
      data[k] = Buffer.from(String(v), 'utf8').toString('base64');
  }
  delete secret.stringData;
  for (const [k, v] of Object.entries(data)) {
    if (typeof v !== 'string' || v.length % 4 !== 0 || !BASE64.test(v)) {
      throw badRequest(
        `Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 0 (key ${JSON.stringify(k)})`,
      );
    }
  }
  secret.data = data;
  secret.type = typeof body.type === 'string' && body.type !== '' ? body.type : 'Opaque';

  const causes: Cause[] = [];
  if (name === '')
    causes.push({
      field: 'metadata.name',
      message: 'Required value: name or generateName is required',
      reason: 'FieldValueRequired',
    });
  else if (name.length > 253 || !DNS_SUBDOMAIN.test(name))
    causes.push({
      field: 'metadata.name',
      message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'`,
    });
  causes.push(...metadataCauses(metadata));
  let size = 0;
  for (const [k, v] of Object.entries(data)) {
    if (!DATA_KEY.test(k))
      causes.push({
        field: `data[${k}]`,
        message: `Invalid value: "${k}": a valid config key must consist of alphanumeric characters, '-', '_' or '.'`,
      });
    size += Buffer.from(String(v), 'base64').length;
  }
  if (size > MAX_SECRET_BYTES)
    causes.push({
      field: 'data',
      message: `Too long: must have at most ${MAX_SECRET_BYTES} bytes`,
      reason: 'FieldValueTooLong',
    });
  if (secret.type === 'kubernetes.io/dockerconfigjson') {
    const encoded = data[DOCKER_CONFIG_JSON_KEY];
    if (typeof encoded !== 'string') {
      causes.push({
        field: `data[${DOCKER_CONFIG_JSON_KEY}]`,
        message: 'Required value',
        reason: 'FieldValueRequired',
      });
    } else {
      const problem = jsonObjectProblem(Buffer.from(encoded, 'base64').toString('utf8'));
      if (problem)
        causes.push({
          field: `data[${DOCKER_CONFIG_JSON_KEY}]`,
          message: `Invalid value: ${REDACTED}: ${problem}`,
        });
    }
  }
  if (previous) {
    if (previous.type !== secret.type)
      causes.push({
        field: 'type',
        message: `Invalid value: "${String(secret.type)}": field is immutable`,
      });
    if (previous.immutable === true) {
      if (JSON.stringify(previous.data ?? {}) !== JSON.stringify(secret.data))
        causes.push({
          field: 'data',
          message: 'Forbidden: field is immutable when `immutable` is set',
          reason: 'FieldValueForbidden',
        });
      if (secret.immutable !== true)
        causes.push({
          field: 'immutable',
          message: 'Forbidden: field is immutable when `immutable` is set',
          reason: 'FieldValueForbidden',
        });
    }
  }
  if (causes.length > 0) throw invalid('Secret', name, causes);
  return secret;
}

function jsonObjectProblem(text: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed as Json)
      ? undefined
      : 'json: cannot unmarshal into Go value of type map[string]interface {}';
  } catch (error) {
    return error instanceof Error
      ? `invalid JSON: ${error.message.replace(/"[^"]*"/g, '"…"')}`
      : 'invalid JSON';
  }
}
