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
const HASH = 'hyperfleet-emulator-core-v1';

const QUERY_PARAMETERS = ['dryRun', 'fieldManager', 'fieldValidation', 'force', 'pretty'].map(
  (name) => ({ name, in: 'query', schema: { type: name === 'force' ? 'boolean' : 'string' } }),
);

const patchOperation = (kind: string, operationId: string) => ({
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
  'x-kubernetes-group-version-kind': { group: '', version: 'v1', kind },
});

const namedPath = (kind: string, id: string) => ({
  get: {
    operationId: `read${id}`,
    responses: { '200': { description: 'OK' } },
    'x-kubernetes-action': 'get',
    'x-kubernetes-group-version-kind': { group: '', version: 'v1', kind },
  },
  patch: patchOperation(kind, `patch${id}`),
});

/** The document for `path`, or undefined when it is not an OpenAPI v3 path served here. */
export function openApiDocument(path: string): unknown {
  if (path === '/openapi/v3')
    return { paths: { 'api/v1': { serverRelativeURL: `/openapi/v3/api/v1?hash=${HASH}` } } };
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
