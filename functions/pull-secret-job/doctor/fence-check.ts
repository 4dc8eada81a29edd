import { fail, ok, skip, type CheckResult } from './check';

/** The admission fence's ValidatingAdmissionPolicy and binding (management-cluster-fence.yaml.tftpl). */
export const FENCE_POLICY = 'hyperfleet-pullsecret-fence';

/**
 * A Secret the fence must refuse, created as a server-side dry run: the request passes
 * authentication, RBAC and admission as a real one does and nothing is stored (KEP-576;
 * https://kubernetes.io/docs/reference/using-api/api-concepts/#dry-run), so the job proves the
 * fence with the rights it has (it may not read admission policies). Both probes are Secrets its
 * cluster-wide RBAC lets it create, so only the fence can refuse them.
 */
export interface FenceProbe {
  readonly namespace: string;
  readonly secret: Readonly<Record<string, unknown>>;
  /** Why the fence must refuse it. */
  readonly why: string;
}

/** The probes: not a pull secret, in `default`; a well-labelled pull secret, in `kube-system`. */
export function fenceProbes(): FenceProbe[] {
  return [
    {
      namespace: 'default',
      why: 'an Opaque Secret (not a pull secret) in default',
      secret: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'hyperfleet-doctor-fence-probe', namespace: 'default' },
        type: 'Opaque',
        data: { probe: Buffer.from('doctor').toString('base64') },
      },
    },
    {
      namespace: 'kube-system',
      why: "a labelled pull secret in kube-system (not its cluster's clusters-{id})",
      secret: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: 'doctor-probe-pull-secret',
          namespace: 'kube-system',
          labels: {
            'managed-by': 'hyperfleet',
            adapter: 'pullsecret',
            'cluster-id': 'doctor-probe',
          },
        },
        type: 'kubernetes.io/dockerconfigjson',
        data: { '.dockerconfigjson': Buffer.from('{"auths":{}}').toString('base64') },
      },
    },
  ];
}

/** How the API server answered a dry-run create. */
export type FenceAnswer =
  | { readonly kind: 'admitted' }
  | { readonly kind: 'refused'; readonly status: number; readonly message: string }
  | { readonly kind: 'failed'; readonly detail: string };

const apply = (cluster: string) =>
  `Apply the fence alone, then re-apply the RBAC: terraform output -raw management_cluster_fence | kubectl apply -f - (kubectl pointed at ${cluster}; Kubernetes 1.30+), docs/management-clusters.md`;

/** The fence is installed and bound: each probe refused by its policy (pure). */
export function judgeFence(
  cluster: string,
  probes: readonly FenceProbe[],
  answers: readonly FenceAnswer[],
): CheckResult {
  const name = `cluster ${cluster} fence`;
  const byFence = (a: FenceAnswer) =>
    a.kind === 'refused' &&
    a.status === 403 &&
    a.message.includes(`ValidatingAdmissionPolicy '${FENCE_POLICY}'`);
  const admitted = probes.filter((_, i) => answers[i]?.kind === 'admitted');
  if (admitted.length > 0)
    return fail(
      name,
      `a dry-run create of ${admitted.map((p) => p.why).join(' and ')} was admitted (nothing was stored)`,
      {
        problem: `The admission fence does not stop the job in ${cluster}: its RBAC lets it write any Secret anywhere, and nothing narrows that (the ValidatingAdmissionPolicy or its binding is missing).`,
        resource: `ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding ${FENCE_POLICY} in ${cluster}`,
        action: `${apply(cluster)}.`,
      },
    );
  const inconclusive = probes.flatMap((p, i) => {
    const a = answers[i]!;
    return byFence(a)
      ? []
      : [
          `${p.why}: ${a.kind === 'refused' ? `${a.status} ${a.message}` : a.kind === 'failed' ? a.detail : 'admitted'}`,
        ];
  });
  if (inconclusive.length > 0)
    return skip(name, `refused before the fence could judge it: ${inconclusive.join('; ')}`, {
      problem:
        "The probes did not reach the fence (RBAC or the namespace refused them first), so the fence's presence is unknown.",
      resource: `${FENCE_POLICY} in ${cluster}`,
      action: `With RBAC bound per namespace the probes cannot reach it; check by hand: kubectl get validatingadmissionpolicybinding ${FENCE_POLICY}.`,
    });
  return ok(
    name,
    `${FENCE_POLICY} refused each dry-run probe (${probes.map((p) => p.why).join('; ')})`,
  );
}
