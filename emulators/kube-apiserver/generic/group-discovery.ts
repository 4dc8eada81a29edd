import type { ObjectTable } from './object-table';
import type { ResourceType } from './resource-type';
import { servedGroups, servedTypes } from './type-registry';

const VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

const groupVersion = (group: string, version: string) => ({
  groupVersion: `${group}/${version}`,
  version,
});

function apiGroup(group: string, versions: string[]) {
  return {
    name: group,
    versions: versions.map((v) => groupVersion(group, v)),
    preferredVersion: groupVersion(group, versions[0]!),
  };
}

function resourcesOf(type: ResourceType) {
  const resource = {
    name: type.plural,
    singularName: type.singular,
    namespaced: type.namespaced,
    kind: type.kind,
    verbs: type.verbs ?? VERBS,
    ...(type.shortNames.length > 0 ? { shortNames: type.shortNames } : {}),
    ...(type.categories.length > 0 ? { categories: type.categories } : {}),
  };
  if (!type.statusSubresource) return [resource];
  return [
    resource,
    {
      name: `${type.plural}/status`,
      singularName: '',
      namespaced: type.namespaced,
      kind: type.kind,
      verbs: ['get', 'patch', 'update'],
    },
  ];
}

/**
 * The discovery documents of the `/apis` groups (built-in and registered by CRDs): `/apis`
 * (APIGroupList), `/apis/GROUP` (APIGroup) and `/apis/GROUP/VERSION` (APIResourceList), so
 * kubectl and client-node find custom resources, their short names and their scope.
 */
export function groupDiscovery(path: string, objects: ObjectTable): unknown {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] !== 'apis' || parts.length > 3) return undefined;
  const groups = servedGroups(objects);
  if (parts.length === 1)
    return {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: [...groups].map(([group, versions]) => apiGroup(group, versions)),
    };
  const [, group, version] = parts as [string, string, string | undefined];
  const versions = groups.get(group);
  if (!versions) return undefined;
  if (version === undefined)
    return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group, versions) };
  if (!versions.includes(version)) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: `${group}/${version}`,
    resources: servedTypes(objects)
      .filter((type) => type.group === group && type.versions.includes(version))
      .flatMap(resourcesOf),
  };
}
