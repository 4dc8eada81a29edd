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
