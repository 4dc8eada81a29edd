import { isObject, type Json } from '../merge-patch';
import { metadataOf, type Obj } from '../object-book';
import type { ObjectTable } from '../generic/object-table';
import type { UserInfo } from '../authentication';
import {
  CLUSTER_ROLE_BINDING_TYPE,
  CLUSTER_ROLE_TYPE,
  ROLE_BINDING_TYPE,
  ROLE_TYPE,
} from './rbac-types';

/** What a request asks to do, as the API server's RequestInfo resolves it for authorizers. */
export interface ResourceAttributes {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
  /** Empty for create, list, watch and deletecollection: resourceNames never match those. */
  readonly name?: string;
  /** Undefined or '' at cluster scope. */
  readonly namespace?: string;
}

/** Why a request is allowed (the real server's RBAC reason), or undefined when it is denied. */
export type Decision =
  { readonly allowed: true; readonly reason: string } | { readonly allowed: false };

// Members of system:masters bypass authorization (the real server's "privileged group").
const MASTERS = 'system:masters';

const strings = (value: Json | undefined): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/** rbac/v1 helpers.go: VerbMatches, APIGroupMatches, ResourceMatches, ResourceNameMatches. */
export function ruleAllows(rule: Obj, request: ResourceAttributes): boolean {
  const verbs = strings(rule.verbs);
  const groups = strings(rule.apiGroups);
  const resources = strings(rule.resources);
  const names = strings(rule.resourceNames);
  const combined = request.subresource
    ? `${request.resource}/${request.subresource}`
    : request.resource;
  const resourceMatches =
    resources.includes('*') ||
    resources.includes(combined) ||
    (request.subresource !== undefined &&
      request.subresource !== '' &&
      resources.includes(`*/${request.subresource}`));
  return (
    (verbs.includes('*') || verbs.includes(request.verb)) &&
    (groups.includes('*') || groups.includes(request.group)) &&
    resourceMatches &&
    (names.length === 0 || (request.name !== undefined && names.includes(request.name)))
  );
}

/** A binding's subject names this user: a User by name, a Group it is in, a ServiceAccount. */
export function subjectMatches(subject: Json, user: UserInfo, bindingNamespace: string): boolean {
  if (!isObject(subject)) return false;
  const name = subject.name;
  switch (subject.kind) {
    case 'User':
      return name === user.username;
    case 'Group':
      return typeof name === 'string' && user.groups.includes(name);
    case 'ServiceAccount': {
      const namespace =
        typeof subject.namespace === 'string' && subject.namespace !== ''
          ? subject.namespace
          : bindingNamespace;
      return user.username === `system:serviceaccount:${namespace}:${String(name)}`;
    }
    default:
      return false;
  }
}

const describe = (user: UserInfo) => `User "${user.username}"`;

/**
 * The RBAC authorizer over the stored Roles, ClusterRoles and their bindings: ClusterRoleBindings
 * grant everywhere, RoleBindings in their own namespace (naming a Role there or a ClusterRole).
 * A binding whose role does not exist grants nothing, as on the real server.
 */
export function authorize(
  objects: ObjectTable,
  user: UserInfo,
  request: ResourceAttributes,
): Decision {
  if (user.groups.includes(MASTERS))
    return { allowed: true, reason: `allowed by group "${MASTERS}"` };
  const clusterRole = (name: string) =>
    objects.find({ type: CLUSTER_ROLE_TYPE, version: 'v1', namespace: '' }, name);
  const grants = (role: Obj | undefined) =>
    role !== undefined &&
    (Array.isArray(role.rules) ? role.rules : []).some(
      (rule) => isObject(rule) && ruleAllows(rule, request),
    );
  for (const binding of objects.all(CLUSTER_ROLE_BINDING_TYPE)) {
    const ref = isObject(binding.roleRef) ? binding.roleRef : {};
    const subjects = Array.isArray(binding.subjects) ? binding.subjects : [];
    if (!subjects.some((subject) => subjectMatches(subject, user, ''))) continue;
    if (grants(clusterRole(String(ref.name))))
      return {
        allowed: true,
        reason: `RBAC: allowed by ClusterRoleBinding "${String(metadataOf(binding).name)}" of ClusterRole "${String(ref.name)}" to ${describe(user)}`,
      };
  }
  const namespace = request.namespace ?? '';
  if (namespace === '') return { allowed: false };
  for (const binding of objects.all(ROLE_BINDING_TYPE)) {
    if (metadataOf(binding).namespace !== namespace) continue;
    const ref = isObject(binding.roleRef) ? binding.roleRef : {};
    const subjects = Array.isArray(binding.subjects) ? binding.subjects : [];
    if (!subjects.some((subject) => subjectMatches(subject, user, namespace))) continue;
    const role =
      ref.kind === 'ClusterRole'
        ? clusterRole(String(ref.name))
        : objects.find({ type: ROLE_TYPE, version: 'v1', namespace }, String(ref.name));
    if (grants(role))
      return {
        allowed: true,
        reason: `RBAC: allowed by RoleBinding "${String(metadataOf(binding).name)}/${namespace}" of ${String(ref.kind)} "${String(ref.name)}" to ${describe(user)}`,
      };
  }
  return { allowed: false };
}
