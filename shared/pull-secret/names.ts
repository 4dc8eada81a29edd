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

/** The `kubernetes.io/dockerconfigjson` Secret in the management namespace. */
export function kubernetesSecretName(clusterId: string): string {
  return `${clusterId}-pull-secret`;
}

/**
 * The name of the one management cluster the single-cluster variables (KUBECONFIG,
 * MANAGEMENT_CLUSTER_ENDPOINT) define when DEFAULT_MANAGEMENT_CLUSTER does not name it.
 */
export const SINGLE_MANAGEMENT_CLUSTER_NAME = 'default';

/**
 * The management namespace of a cluster's pull secret: `clusters-{id}`, the only one the admission
 * fence admits for it (templates/management-cluster-fence.yaml.tftpl). Tying the namespace to the
 * cluster id is what keeps placement data (another adapter's, so untrusted) from steering one
 * cluster's pull secret into another cluster's namespace or a system namespace.
 */
export function managementNamespaceOf(clusterId: string): string {
  return `clusters-${clusterId}`;
}

/**
 * Why the place `namespace`/`name` cannot hold the pull secret of `clusterId` (the fence's rule, so
 * that the job refuses before the cluster does), or undefined when it can.
 */
export function placeProblem(
  clusterId: string,
  namespace: string,
  name: string,
): string | undefined {
  const expected = {
    namespace: managementNamespaceOf(clusterId),
    name: kubernetesSecretName(clusterId),
  };
  if (namespace === expected.namespace && name === expected.name) return undefined;
  return `the pull secret of cluster ${clusterId} may only be ${expected.namespace}/${expected.name} (the namespace clusters-{id} and the name {id}-pull-secret: the rule the admission fence enforces), not ${JSON.stringify(`${namespace}/${name}`.slice(0, 140))}`;
}
