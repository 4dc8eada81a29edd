import * as z from 'zod';

/** One permission: verbs on resources, in some namespaces ('*' means all). */
export const ruleSchema = z.object({
  resources: z.array(z.string()).min(1),
  verbs: z.array(z.string()).min(1),
  namespaces: z.array(z.string()).default(['*']),
});

/** The RBAC table: bearer token -> identity and its rules. */
export const rbacTableSchema = z.record(
  z.string().min(8),
  z.object({ user: z.string().min(1), rules: z.array(ruleSchema) }),
);
export type RbacTable = z.output<typeof rbacTableSchema>;
export type Identity = RbacTable[string];

/** Full rights, for the emulator's admin token. */
export const CLUSTER_ADMIN_RULES: Identity['rules'] = [
  { resources: ['*'], verbs: ['*'], namespaces: ['*'] },
];

/** True when `identity` may perform `verb` on `resource` in `namespace` (undefined: cluster scope). */
export function isAllowed(
  identity: Identity,
  verb: string,
  resource: string,
  namespace: string | undefined,
): boolean {
  return identity.rules.some(
    (rule) =>
      (rule.resources.includes('*') || rule.resources.includes(resource)) &&
      (rule.verbs.includes('*') || rule.verbs.includes(verb)) &&
      (rule.namespaces.includes('*') ||
        (namespace !== undefined && rule.namespaces.includes(namespace))),
  );
}
