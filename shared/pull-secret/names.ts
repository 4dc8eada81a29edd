/**
 * The names of a cluster's pull secret, in one place: the adapter names them in the execution's
 * overrides, the job writes them, the reporter reports them (ARCHITECTURE.md, "What it does").
 */
export function secretManagerSecretId(clusterId: string): string {
  return `hyperfleet-${clusterId}-pull-secret`;
}

/** The `kubernetes.io/dockerconfigjson` Secret in the management namespace. */
export function kubernetesSecretName(clusterId: string): string {
  return `${clusterId}-pull-secret`;
}

/**
 * The name of the one management cluster the single-cluster variables (KUBECONFIG,
 * MANAGEMENT_CLUSTER_ENDPOINT) define when DEFAULT_MANAGEMENT_CLUSTER does not name it.
 */
export const SINGLE_MANAGEMENT_CLUSTER_NAME = 'default';
