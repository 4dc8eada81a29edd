/**
 * The names of a cluster's pull secret, in one place: the adapter names them in the execution's
 * overrides, the job writes them, the reporter reports them (docs/design/job-protocol.md, "What the job writes").
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
