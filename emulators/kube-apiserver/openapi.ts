/**
 * The OpenAPI v3 documents kubectl reads before `apply`: `/openapi/v3` lists group-versions, and
 * `/openapi/v3/api/v1` describes the PATCH operations of namespaces and secrets with their
 * `x-kubernetes-group-version-kind` and query parameters. kubectl sees `fieldValidation` there and
 * leaves validation to the server (`?fieldValidation=Strict`) instead of downloading schemas.
 *
 * Only the operations are described, not the object schemas, so the PATCH request bodies list no
 * strategic-merge content type: kubectl then computes its strategic merge patch from its compiled-in
 * core/v1 types (its documented fallback) and still sends `application/strategic-merge-patch+json`.
 */
import { createHash } from 'node:crypto';
import type { ObjectTable } from './generic/object-table';
import { servedTypes } from './generic/type-registry';

const HASH = 'hyperfleet-emulator-core-v1';

const QUERY_PARAMETERS = ['dryRun', 'fieldManager', 'fieldValidation', 'force', 'pretty'].map(
  (name) => ({ name, in: 'query', schema: { type: name === 'force' ? 'boolean' : 'string' } }),
);

const patchOperation = (kind: string, operationId: string, group = '', version = 'v1') => ({
  operationId,
  parameters: QUERY_PARAMETERS,
  requestBody: {
    content: {
      'application/json-patch+json': { schema: { type: 'object' } },
      'application/merge-patch+json': { schema: { type: 'object' } },
      'application/apply-patch+yaml': { schema: { type: 'object' } },
    },
    required: true,
  },
  responses: { '200': { description: 'OK' }, '201': { description: 'Created' } },
  'x-kubernetes-action': 'patch',
  'x-kubernetes-group-version-kind': { group, version, kind },
});

const namedPath = (kind: string, id: string, group = '', version = 'v1') => ({
  get: {
    operationId: `read${id}`,
    responses: { '200': { description: 'OK' } },
    'x-kubernetes-action': 'get',
    'x-kubernetes-group-version-kind': { group, version, kind },
  },
  patch: patchOperation(kind, `patch${id}`, group, version),
});

/**
 * The `/apis/GROUP/VERSION` document: the named path of every kind served there (custom
 * resources included), so `kubectl apply` finds the kind, sees `fieldValidation`, and (no
 * strategic merge content type) sends a JSON merge patch, as it does for custom resources.
 */
function groupVersionDocument(objects: ObjectTable, group: string, version: string): unknown {
  const types = servedTypes(objects).filter(
    (t) => t.group === group && t.versions.includes(version),
  );
  if (types.length === 0) return undefined;
  const paths = Object.fromEntries(
    types.map((t) => [
      t.namespaced
        ? `/apis/${group}/${version}/namespaces/{namespace}/${t.plural}/{name}`
        : `/apis/${group}/${version}/${t.plural}/{name}`,
      namedPath(t.kind, `${t.kind}${version}`, group, version),
    ]),
  );
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.31.0-hyperfleet-emulator' },
    paths,
    components: { schemas: {} },
  };
}

/** The document for `path`, or undefined when it is not an OpenAPI v3 path served here. */
export function openApiDocument(path: string, objects?: ObjectTable): unknown {
  if (path === '/openapi/v3') {
    const groupVersions = objects
      ? [
          ...new Set(
            servedTypes(objects).flatMap((t) => t.versions.map((v) => `apis/${t.group}/${v}`)),
          ),
        ]
      : [];
    // The hash changes when the served kinds change, so kubectl's cache refetches.
    const hash = createHash('sha256').update(groupVersions.join(',')).digest('hex').slice(0, 16);
    return {
      paths: {
        'api/v1': { serverRelativeURL: `/openapi/v3/api/v1?hash=${HASH}` },
        ...Object.fromEntries(
          groupVersions.map((gv) => [gv, { serverRelativeURL: `/openapi/v3/${gv}?hash=${hash}` }]),
        ),
      },
    };
  }
  const match = /^\/openapi\/v3\/apis\/([^/]+)\/([^/]+)$/.exec(path);
  if (match && objects) return groupVersionDocument(objects, match[1]!, match[2]!);
  if (path === '/openapi/v3/api/v1')
    return {
      openapi: '3.0.0',
      info: { title: 'Kubernetes', version: 'v1.31.0-hyperfleet-emulator' },
      paths: {
        '/api/v1/namespaces/{name}': namedPath('Namespace', 'CoreV1Namespace'),
        '/api/v1/namespaces/{namespace}/secrets/{name}': namedPath(
          'Secret',
          'CoreV1NamespacedSecret',
        ),
      },
      components: { schemas: {} },
    };
  return undefined;
}
