/** Identity of the cluster whose pull secret is managed. */
export interface ClusterIdentity {
  readonly clusterId: string;
  readonly clusterName?: string;
}

/** Label that marks resources this adapter owns; nothing without it is ever modified. */
export const MANAGED_BY = { key: 'managed-by', value: 'hyperfleet' } as const;

/** Labels of the Secret Manager secret (ARCHITECTURE.md). */
export function secretManagerLabels(cluster: ClusterIdentity): Record<string, string> {
  return {
    [MANAGED_BY.key]: MANAGED_BY.value,
    adapter: 'pullsecret',
    'cluster-id': cluster.clusterId,
    ...(cluster.clusterName ? { 'cluster-name': cluster.clusterName } : {}),
    'resource-type': 'pull-secret',
    'hyperfleet-version': 'v1',
  };
}

/** Labels of the Kubernetes Secret in the management cluster. */
export function kubernetesLabels(cluster: ClusterIdentity): Record<string, string> {
  return {
    [MANAGED_BY.key]: MANAGED_BY.value,
    adapter: 'pullsecret',
    'cluster-id': cluster.clusterId,
    ...(cluster.clusterName ? { 'cluster-name': cluster.clusterName } : {}),
    'hyperfleet-version': 'v1',
  };
}

export function isOwnedByHyperfleet(labels: Readonly<Record<string, string>> | undefined): boolean {
  return labels?.[MANAGED_BY.key] === MANAGED_BY.value;
}

/**
 * A Kubernetes Secret the job may delete: ours by every label that says so, for this cluster. A
 * Secret someone else put at a place we once wrote to is left alone, even if it says managed-by.
 */
export function isOurKubernetesSecret(
  labels: Readonly<Record<string, string>> | undefined,
  clusterId: string,
): boolean {
  return (
    isOwnedByHyperfleet(labels) &&
    labels?.adapter === 'pullsecret' &&
    labels['cluster-id'] === clusterId
  );
}
