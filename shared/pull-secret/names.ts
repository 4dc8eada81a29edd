/**
 * The names of a cluster's pull secret, in one place: the adapter names them in the execution's
 * overrides, the job writes them, the reporter reports them (docs/design/job-protocol.md, "What the job writes").
 */
export function secretManagerSecretId(clusterId: string): string {
  return `hyperfleet-${clusterId}-pull-secret`;
}

/**
 * The version alias readers of the Secret Manager secret read (`.../versions/current`): the job
 * moves it to a new version only through a compare-and-swap a newer generation wins, so it always
 * names the newest generation's bytes, while `latest` may name a newer-numbered version an older
 * generation added and then withdrew (docs/design/job-protocol.md, "Secret Manager never goes back").
 */
export const PUBLISHED_VERSION_ALIAS = 'current';

/** The published version of a secret, as readers name it: `{secretPath}/versions/current`. */
export function publishedVersionPath(secretPath: string): string {
  return `${secretPath}/versions/${PUBLISHED_VERSION_ALIAS}`;
}

/**
 * The `kubernetes.io/dockerconfigjson` Secret in the management namespace: named after the cluster
 * id in every namespace layout (shared/pull-secret/namespace-layout.ts), so that one shared
 * namespace holds every cluster's without a clash, and the fence can tie the name to the id.
 */
export function kubernetesSecretName(clusterId: string): string {
  return `${clusterId}-pull-secret`;
}

/**
 * The name of the one management cluster the single-cluster variables (KUBECONFIG,
 * MANAGEMENT_CLUSTER_ENDPOINT) define when DEFAULT_MANAGEMENT_CLUSTER does not name it.
 */
export const SINGLE_MANAGEMENT_CLUSTER_NAME = 'default';
