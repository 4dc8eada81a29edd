import { groupDiscovery } from './generic/group-discovery';
import type { ObjectTable } from './generic/object-table';

/**
 * Discovery documents: enough for kubectl get/apply/delete and client-node on core/v1, and the
 * `/apis` groups (CRDs, admission policies, and the kinds CRDs register) when `objects` is given.
 */
export function discoveryDocument(
  path: string,
  serverAddress: string,
  objects?: ObjectTable,
): unknown {
  if (objects && path.startsWith('/apis')) return groupDiscovery(path, objects);
  switch (path) {
    case '/version':
      return {
        major: '1',
        minor: '31',
        gitVersion: 'v1.31.0-hyperfleet-emulator',
        gitCommit: 'emulator',
        gitTreeState: 'clean',
        buildDate: '2026-01-01T00:00:00Z',
        goVersion: 'go1.22',
        compiler: 'gc',
        platform: 'linux/amd64',
      };
    case '/api':
      return {
        kind: 'APIVersions',
        versions: ['v1'],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
      };
    case '/apis':
      return { kind: 'APIGroupList', apiVersion: 'v1', groups: [] };
    case '/api/v1':
      return {
        kind: 'APIResourceList',
        groupVersion: 'v1',
        resources: [
          {
            name: 'namespaces',
            singularName: 'namespace',
            namespaced: false,
            kind: 'Namespace',
            verbs: ['create', 'delete', 'get', 'list', 'patch', 'update'],
            shortNames: ['ns'],
          },
          {
            name: 'secrets',
            singularName: 'secret',
            namespaced: true,
            kind: 'Secret',
            verbs: ['create', 'delete', 'get', 'list', 'patch', 'update'],
          },
        ],
      };
    default:
      return undefined;
  }
}
