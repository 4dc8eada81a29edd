import { isObject, type Json } from '../merge-patch';
import type { FieldCause } from '../metadata-rules';
import type { Obj } from '../object-book';
import { throwIfInvalid } from '../generic/object-meta';
import type { ResourceType } from '../generic/resource-type';

// `rbac.authorization.k8s.io/v1` as the real API server validates it (pkg/apis/rbac/validation in
// kubernetes/kubernetes: ValidatePolicyRule, ValidateRoleBinding*, roleRef immutability), reduced to
// what an operator's manifests can get wrong. Aggregated ClusterRoles (`aggregationRule`) are
// stored but not aggregated: no manifest of this project uses them, so the authorizer reads
// `rules` only and a ClusterRole with an aggregationRule is refused rather than misread.

const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'];
const list = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : []);
const required = (field: string): FieldCause => ({
  field,
  message: 'Required value',
  reason: 'FieldValueRequired',
});

/** `rules[i]`: verbs always; resources with apiGroups, or nonResourceURLs (not both). */
function ruleCauses(rules: Json | undefined, namespaced: boolean): FieldCause[] {
  return list(rules).flatMap((rule, i) => {
    const r = isObject(rule) ? rule : {};
    const at = `rules[${i}]`;
    const causes: FieldCause[] = [];
    if (list(r.verbs).length === 0)
      causes.push({
        ...required(`${at}.verbs`),
        message: 'Required value: verbs must contain at least one value',
      });
    const nonResource = list(r.nonResourceURLs).length > 0;
    if (nonResource && namespaced)
      causes.push({
        field: `${at}.nonResourceURLs`,
        message: 'Invalid value: namespaced rules cannot apply to non-resource URLs',
      });
    if (nonResource && (list(r.apiGroups).length > 0 || list(r.resources).length > 0))
      causes.push({
        field: `${at}.nonResourceURLs`,
        message:
          'Invalid value: rules cannot apply to both regular resources and non-resource URLs',
      });
    if (!nonResource) {
      if (list(r.apiGroups).length === 0)
        causes.push({
          ...required(`${at}.apiGroups`),
          message: 'Required value: resource rules must supply at least one api group',
        });
      if (list(r.resources).length === 0)
        causes.push({
          ...required(`${at}.resources`),
          message: 'Required value: resource rules must supply at least one resource',
        });
    }
    return causes;
  });
}

function roleNormaliser(type: () => ResourceType, namespaced: boolean) {
  return (object: Obj): Obj => {
    const causes = ruleCauses(object.rules, namespaced);
    if (!namespaced && object.aggregationRule !== undefined && object.aggregationRule !== null)
      causes.push({
        field: 'aggregationRule',
        message:
          'Invalid value: aggregated ClusterRoles are not supported by this emulator (its authorizer reads rules only)',
      });
    throwIfInvalid(type(), object, causes);
    return { ...object, rules: list(object.rules) };
  };
}

/** roleRef (required, immutable) and subjects (kind, name; a ServiceAccount's namespace). */
function bindingNormaliser(type: () => ResourceType, namespaced: boolean) {
  return (object: Obj, previous: Obj | undefined): Obj => {
    const causes: FieldCause[] = [];
    const ref = isObject(object.roleRef) ? object.roleRef : undefined;
    const allowedKinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
    if (!ref) causes.push(required('roleRef'));
    else {
      if (ref.apiGroup !== 'rbac.authorization.k8s.io')
        causes.push({
          field: 'roleRef.apiGroup',
          message: `Unsupported value: ${JSON.stringify(ref.apiGroup ?? '')}: supported values: "rbac.authorization.k8s.io"`,
          reason: 'FieldValueNotSupported',
        });
      if (!allowedKinds.includes(String(ref.kind)))
        causes.push({
          field: 'roleRef.kind',
          message: `Unsupported value: ${JSON.stringify(ref.kind ?? '')}: supported values: ${allowedKinds.map((k) => `"${k}"`).join(', ')}`,
          reason: 'FieldValueNotSupported',
        });
      if (typeof ref.name !== 'string' || ref.name === '') causes.push(required('roleRef.name'));
    }
    if (previous && JSON.stringify(previous.roleRef) !== JSON.stringify(object.roleRef))
      causes.push({
        field: 'roleRef',
        message: `Invalid value: ${JSON.stringify(object.roleRef)}: cannot change roleRef`,
      });
    list(object.subjects).forEach((s, i) => {
      const subject = isObject(s) ? s : {};
      const at = `subjects[${i}]`;
      if (!SUBJECT_KINDS.includes(String(subject.kind)))
        causes.push({
          field: `${at}.kind`,
          message: `Unsupported value: ${JSON.stringify(subject.kind ?? '')}: supported values: "ServiceAccount", "User", "Group"`,
          reason: 'FieldValueNotSupported',
        });
      if (typeof subject.name !== 'string' || subject.name === '')
        causes.push(required(`${at}.name`));
      if (subject.kind === 'ServiceAccount' && !namespaced && !subject.namespace)
        causes.push(required(`${at}.namespace`));
    });
    throwIfInvalid(type(), object, causes);
    return object;
  };
}

const base = {
  group: 'rbac.authorization.k8s.io',
  versions: ['v1'],
  shortNames: [],
  categories: [],
  typeMetaFromUrl: true,
  statusSubresource: false,
} as const;

/** `rbac.authorization.k8s.io/v1` ClusterRole. */
export const CLUSTER_ROLE_TYPE: ResourceType = {
  ...base,
  plural: 'clusterroles',
  singular: 'clusterrole',
  kind: 'ClusterRole',
  listKind: 'ClusterRoleList',
  namespaced: false,
  normalise: (object) => roleNormaliser(() => CLUSTER_ROLE_TYPE, false)(object),
};

/** `rbac.authorization.k8s.io/v1` Role. */
export const ROLE_TYPE: ResourceType = {
  ...base,
  plural: 'roles',
  singular: 'role',
  kind: 'Role',
  listKind: 'RoleList',
  namespaced: true,
  normalise: (object) => roleNormaliser(() => ROLE_TYPE, true)(object),
};

/** `rbac.authorization.k8s.io/v1` ClusterRoleBinding. */
export const CLUSTER_ROLE_BINDING_TYPE: ResourceType = {
  ...base,
  plural: 'clusterrolebindings',
  singular: 'clusterrolebinding',
  kind: 'ClusterRoleBinding',
  listKind: 'ClusterRoleBindingList',
  namespaced: false,
  normalise: (object, previous) =>
    bindingNormaliser(() => CLUSTER_ROLE_BINDING_TYPE, false)(object, previous),
};

/** `rbac.authorization.k8s.io/v1` RoleBinding. */
export const ROLE_BINDING_TYPE: ResourceType = {
  ...base,
  plural: 'rolebindings',
  singular: 'rolebinding',
  kind: 'RoleBinding',
  listKind: 'RoleBindingList',
  namespaced: true,
  normalise: (object, previous) =>
    bindingNormaliser(() => ROLE_BINDING_TYPE, true)(object, previous),
};

export const RBAC_TYPES: readonly ResourceType[] = [
  CLUSTER_ROLE_TYPE,
  CLUSTER_ROLE_BINDING_TYPE,
  ROLE_TYPE,
  ROLE_BINDING_TYPE,
];
