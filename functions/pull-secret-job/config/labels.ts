/** Identity of the cluster whose pull secret is managed. */
export interface ClusterIdentity {
  readonly clusterId: string;
  readonly clusterName?: string;
}

/** Label that marks resources this adapter owns; nothing without it is ever modified. */
export const MANAGED_BY = { key: 'managed-by', value: 'hyperfleet' } as const;

/** Labels of the Secret Manager secret (docs/design/job-protocol.md, "What the job writes"). */
export function secretManagerLabels(cluster: ClusterIdentity): Record<string, string> {
  return {
    ...ownershipLabels(cluster.clusterId),
    ...(cluster.clusterName ? { 'cluster-name': cluster.clusterName } : {}),
    'resource-type': 'pull-secret',
    'hyperfleet-version': 'v1',
  };
}

/** Labels of the Kubernetes Secret in the management cluster. */
export function kubernetesLabels(cluster: ClusterIdentity): Record<string, string> {
  return {
    ...ownershipLabels(cluster.clusterId),
    ...(cluster.clusterName ? { 'cluster-name': cluster.clusterName } : {}),
    'hyperfleet-version': 'v1',
  };
}

/** Whether a resource says managed-by=hyperfleet; alone, this does not make it ours (isOurs). */
export function isOwnedByHyperfleet(labels: Readonly<Record<string, string>> | undefined): boolean {
  return labels?.[MANAGED_BY.key] === MANAGED_BY.value;
}

/** The labels that make a resource ours for a cluster, on Secret Manager and Kubernetes alike. */
export const ownershipLabels = (clusterId: string): Record<string, string> => ({
  [MANAGED_BY.key]: MANAGED_BY.value,
  adapter: 'pullsecret',
  'cluster-id': clusterId,
});

/**
 * The one ownership rule: ours by every label that says so, for this cluster. A Secret Manager
 * secret or a Kubernetes Secret that says only managed-by (another HyperFleet component's), or
 * names another cluster, is never claimed, written, annotated or deleted.
 */
export function isOurs(
  labels: Readonly<Record<string, string>> | undefined,
  clusterId: string,
): boolean {
  return ownershipMismatch(labels, clusterId) === undefined;
}

/** Which ownership label is missing or different, for an error message; undefined when ours. */
export function ownershipMismatch(
  labels: Readonly<Record<string, string>> | undefined,
  clusterId: string,
): string | undefined {
  const wrong = Object.entries(ownershipLabels(clusterId)).filter(
    ([key, value]) => labels?.[key] !== value,
  );
  if (wrong.length === 0) return undefined;
  return wrong
    .map(([key, value]) =>
      labels?.[key] === undefined
        ? `label ${key}=${value} is missing`
        : `label ${key} is "${labels[key]}", not "${value}"`,
    )
    .join(', ');
}

/**
 * A Kubernetes Secret the job may delete or overwrite (isOurs). A Secret someone else put at a
 * place we once wrote to is left alone, even if it says managed-by.
 */
export const isOurKubernetesSecret = isOurs;

/** A Secret Manager secret the job may claim, write, annotate or delete (isOurs). */
export const isOurSecretManagerSecret = isOurs;
