import { BINDING_TYPE, POLICY_TYPE } from '../admission/policy-types';
import { CRD_TYPE, customTypeOf } from '../crds/custom-types';
import { SELF_SUBJECT_ACCESS_REVIEW_TYPE } from '../rbac/access-review';
import { RBAC_TYPES } from '../rbac/rbac-types';
import type { ObjectTable } from './object-table';
import type { ResourceType } from './resource-type';

/** The kinds served under `/apis` by the emulator itself, before any CRD is registered. */
export const BUILT_IN_TYPES: readonly ResourceType[] = [
  CRD_TYPE,
  POLICY_TYPE,
  BINDING_TYPE,
  ...RBAC_TYPES,
  SELF_SUBJECT_ACCESS_REVIEW_TYPE,
];

/** Every kind served under `/apis` now: the built-in ones and those of the stored CRDs. */
export function servedTypes(objects: ObjectTable): ResourceType[] {
  const custom = objects
    .all(CRD_TYPE)
    .map(customTypeOf)
    .filter((type): type is ResourceType => type !== undefined);
  return [...BUILT_IN_TYPES, ...custom];
}

/** Whether a stored CRD serves `plural` in `group` (a custom resource, not a built-in kind). */
export function isCustomResource(objects: ObjectTable, group: string, plural: string): boolean {
  return servedTypes(objects).some(
    (type) => !BUILT_IN_TYPES.includes(type) && type.group === group && type.plural === plural,
  );
}

/** The kind served at `/apis/group/version/plural`, if any. */
export function resolveType(
  objects: ObjectTable,
  group: string,
  version: string,
  plural: string,
): ResourceType | undefined {
  return servedTypes(objects).find(
    (type) => type.group === group && type.plural === plural && type.versions.includes(version),
  );
}

/** The served groups, each with its versions in the order first seen (preferred first). */
export function servedGroups(objects: ObjectTable): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const type of servedTypes(objects)) {
    const versions = groups.get(type.group) ?? [];
    for (const version of type.versions) if (!versions.includes(version)) versions.push(version);
    groups.set(type.group, versions);
  }
  return groups;
}
