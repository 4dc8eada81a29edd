import { fail, ok, type CheckResult } from './check';

// What the job's identity may do in a management cluster, and what it must not: the RBAC template
// (terraform/modules/pullsecret-adapter/templates/management-cluster-rbac.yaml.tftpl) grants Secrets
// create, patch and delete, nothing else: no get, list or watch (threat 1 of SECURITY.md), no
// update (the job patches only its own fields), no namespaces, and no rights over RBAC or the
// admission fence (with either, code running as the job could widen its own rights or lift the
// fence). Each is asked as a SelfSubjectAccessReview, RBAC's own answer for the job's identity
// (https://kubernetes.io/docs/reference/access-authn-authz/authorization/#checking-api-access).
// Writes outside the job's own Secrets (kube-system...) are RBAC-allowed by the cluster-wide
// binding and refused by the fence: fence-check.ts proves that part.

/** One question to RBAC: may the job do this? */
export interface AccessQuestion {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
  /** Absent: cluster-wide (every namespace, or a cluster-scoped resource). */
  readonly namespace?: string;
}

/** A question and the answer the RBAC template gives. */
export interface Expectation extends AccessQuestion {
  readonly allowed: boolean;
}

/** RBAC's answer to one question, or why there was none. */
export type AccessAnswer =
  | { readonly kind: 'answered'; readonly allowed: boolean; readonly reason?: string }
  | { readonly kind: 'failed'; readonly detail: string };

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const ADMISSION_GROUP = 'admissionregistration.k8s.io';

/** Everything the doctor asks, in `namespace` (a clusters-{id} namespace, or one the RBAC binds). */
export function expectedRights(namespace: string): Expectation[] {
  /** `where` null: every namespace (a cluster-wide list or watch). */
  const secrets = (verb: string, allowed: boolean, where: string | null = namespace) => ({
    verb,
    group: '',
    resource: 'secrets',
    ...(where !== null ? { namespace: where } : {}),
    allowed,
  });
  const denied = (
    verb: string,
    group: string,
    resource: string,
    extra: Partial<AccessQuestion> = {},
  ) => ({
    verb,
    group,
    resource,
    ...extra,
    allowed: false,
  });
  return [
    secrets('create', true),
    secrets('patch', true),
    secrets('delete', true),
    secrets('get', false),
    secrets('list', false),
    secrets('watch', false),
    secrets('update', false),
    secrets('deletecollection', false),
    secrets('list', false, null),
    secrets('watch', false, null),
    secrets('get', false, 'kube-system'),
    denied('get', '', 'namespaces'),
    denied('list', '', 'namespaces'),
    denied('create', '', 'namespaces'),
    denied('create', '', 'pods', { namespace }),
    denied('create', '', 'pods', { namespace, subresource: 'exec' }),
    denied('create', '', 'serviceaccounts', { namespace, subresource: 'token' }),
    denied('get', '', 'configmaps', { namespace }),
    denied('impersonate', '', 'users'),
    denied('impersonate', '', 'serviceaccounts'),
    ...['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings'].flatMap((resource) =>
      ['create', 'update', 'patch', 'delete'].map((verb) => denied(verb, RBAC_GROUP, resource)),
    ),
    denied('escalate', RBAC_GROUP, 'clusterroles'),
    denied('bind', RBAC_GROUP, 'clusterroles'),
    ...['validatingadmissionpolicies', 'validatingadmissionpolicybindings'].flatMap((resource) =>
      ['create', 'update', 'patch', 'delete'].map((verb) =>
        denied(verb, ADMISSION_GROUP, resource),
      ),
    ),
    denied('*', '*', '*'),
  ];
}

/** `create secrets in clusters-x`, `list secrets in every namespace`, `bind clusterroles.rbac.authorization.k8s.io`. */
export function describeQuestion(q: AccessQuestion): string {
  const resource = `${q.resource}${q.subresource ? `/${q.subresource}` : ''}${q.group && q.group !== '*' ? `.${q.group}` : ''}`;
  const where =
    q.namespace !== undefined
      ? ` in ${q.namespace}`
      : ['secrets', 'pods', 'configmaps'].includes(q.resource)
        ? ' in every namespace'
        : '';
  return `${q.verb} ${resource}${where}`;
}

/** How to put the job's RBAC back as Terraform renders it. */
export const reapplyRbac = (cluster: string) =>
  `terraform output -json management_cluster_rbac | jq -r '.["${cluster}"]' | kubectl apply -f - (with kubectl pointed at the cluster; docs/management-clusters.md)`;

/** The job's RBAC in one cluster is exactly what the template gives (pure). */
export function judgeClusterRights(
  cluster: string,
  identity: string,
  expectations: readonly Expectation[],
  answers: readonly AccessAnswer[],
): CheckResult {
  const name = `cluster ${cluster} rbac`;
  const answered: (Expectation & { answer: { allowed: boolean; reason?: string } })[] = [];
  for (const [i, expectation] of expectations.entries()) {
    const answer = answers[i] ?? { kind: 'failed', detail: 'no answer' };
    if (answer.kind === 'failed')
      return fail(
        name,
        `SelfSubjectAccessReview failed (${describeQuestion(expectation)}): ${answer.detail}`,
        {
          problem: 'The cluster would not say what the job may do.',
          resource: `management cluster ${cluster}`,
          action:
            'See the reach check of this cluster; docs/management-clusters.md, "Checking the job\'s rights".',
        },
      );
    answered.push({ ...expectation, answer });
  }
  const missing = answered.filter((e) => e.allowed && !e.answer.allowed);
  const excess = answered.filter((e) => !e.allowed && e.answer.allowed);
  if (missing.length > 0)
    return fail(name, `may not ${missing.map(describeQuestion).join(', ')}`, {
      problem: `The job's identity lacks ${missing.map(describeQuestion).join(', ')}: it cannot write pull secrets in ${cluster}.`,
      resource: `ClusterRole hyperfleet-pullsecret-writer and its binding to ${identity} in ${cluster}`,
      action: `Re-apply the cluster's RBAC: ${reapplyRbac(cluster)}.`,
    });
  if (excess.length > 0) {
    const grants = [
      ...new Set(excess.map((e) => e.answer.reason).filter((r): r is string => Boolean(r))),
    ];
    return fail(name, `may ${excess.map(describeQuestion).join(', ')}, which the job must not`, {
      problem: `The job's identity holds rights beyond create, patch and delete on Secrets in ${cluster}: ${excess.map(describeQuestion).join(', ')}. Code running as the job could ${excess.some((e) => e.resource === 'secrets' && ['get', 'list', 'watch'].includes(e.verb)) ? "read every hosted cluster's secrets" : 'widen its own rights or lift the fence'}.`,
      resource: `${grants.length > 0 ? grants.join('; ') : 'a role bound to the job'} (in ${cluster})`,
      action: `Re-apply the cluster's RBAC (${reapplyRbac(cluster)}), which resets hyperfleet-pullsecret-writer to create, patch and delete on secrets, and delete any other binding that names ${identity} (kubectl get clusterrolebindings,rolebindings -A -o wide | grep ${identity}).`,
    });
  }
  return ok(
    name,
    `may create, patch, delete secrets; may not ${answered.filter((e) => !e.allowed).length} other things asked (get/list/watch/update secrets, namespaces, RBAC, admission policies, impersonation)`,
  );
}
