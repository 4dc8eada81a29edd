import { createHash } from 'node:crypto';
import * as z from 'zod';
import type { Obj } from './object-book';

/** One convenience grant: verbs on resources (any API group), in some namespaces ('*' means all). */
export const ruleSchema = z.object({
  resources: z.array(z.string()).min(1),
  verbs: z.array(z.string()).min(1),
  namespaces: z.array(z.string()).default(['*']),
});
export type GrantRule = z.output<typeof ruleSchema>;

/**
 * Static bearer tokens (as a kube-apiserver `--token-auth-file` gives them: token -> user and
 * groups), each optionally with convenience grants. Grants are not a second authorizer: they are
 * turned into real RBAC objects (grantObjects) that the one RBAC authorizer evaluates.
 */
export const rbacTableSchema = z.record(
  z.string().min(8),
  z.object({
    user: z.string().min(1),
    groups: z.array(z.string().min(1)).optional(),
    rules: z.array(ruleSchema).default([]),
  }),
);
export type RbacTable = z.input<typeof rbacTableSchema>;

/** Full rights (the admin token is in system:masters and needs none). */
export const CLUSTER_ADMIN_RULES: GrantRule[] = [
  { resources: ['*'], verbs: ['*'], namespaces: ['*'] },
];

/** The label that marks the RBAC objects made for a user's convenience grants (to replace them). */
export const GRANT_LABEL = 'emulator.hyperfleet.io/grant-for';

const grantKey = (user: string) => createHash('sha256').update(user).digest('hex').slice(0, 16);

/**
 * The RBAC objects that give `user` the grant `rules`: a ClusterRole per rule, bound cluster-wide
 * ('*') or by a RoleBinding in each listed namespace, as an administrator would write them.
 */
export function grantObjects(user: string, rules: readonly GrantRule[]): Obj[] {
  const key = grantKey(user);
  const metadata = (name: string, namespace?: string) => ({
    name,
    ...(namespace ? { namespace } : {}),
    labels: { [GRANT_LABEL]: key },
  });
  const subjects = [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user }];
  return rules.flatMap((rule, i) => {
    const name = `emulator-grant-${key}-${i}`;
    const roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name };
    const role: Obj = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: metadata(name),
      rules: [{ apiGroups: ['*'], resources: rule.resources, verbs: rule.verbs }],
    };
    const bindings: Obj[] = rule.namespaces.includes('*')
      ? [
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRoleBinding',
            metadata: metadata(name),
            roleRef,
            subjects,
          },
        ]
      : rule.namespaces.map((namespace) => ({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: metadata(name, namespace),
          roleRef,
          subjects,
        }));
    return [role, ...bindings];
  });
}

/** The grant label value of a user's convenience grants. */
export const grantLabelValue = grantKey;
