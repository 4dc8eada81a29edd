import { gcpProjectOf } from '../../../shared/hyperfleet/cluster-project';
import type { AdapterStatus, Cluster } from '../../../shared/hyperfleet/schemas';
import { readPath } from '../../../shared/object-path';
import { managementNamespaceOf } from '../../../shared/pull-secret/names';
import type { ClusterFacts } from './decision';
import { DEFAULT_NAMESPACE_TEMPLATE, renderNamespace } from './namespace-template';

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

const unset = (value: unknown) => value === undefined || value === null || value === '';
const shown = (value: unknown) => JSON.stringify(String(value).slice(0, 80));

/**
 * What the decision needs from the cluster and the other adapters' statuses: the GCP project id
 * (current `spec.platform.gcp.projectID` or older `spec.gcp.projectId`), the management namespace
 * (placement's `data.namespace`, else the template, `clusters-{id}` by default) and the management
 * cluster (placement's `data.managementCluster`, else none: the job's default). The namespace is
 * where HyperShift's HostedCluster lives and reads the pull secret, so placement, this adapter and
 * the HyperShift adapter must all derive it the same way.
 */
export function clusterFacts(
  cluster: Cluster,
  statuses: readonly AdapterStatus[],
  namespaceTemplate: string = DEFAULT_NAMESPACE_TEMPLATE,
): ClusterFacts {
  const project = gcpProjectOf(cluster);
  const placement = statuses.find((s) => s.adapter === 'placement')?.data;
  return {
    clusterId: cluster.id,
    clusterName: cluster.name,
    generation: cluster.generation,
    deleting: Boolean(cluster.deleted_time),
    gcpProjectId: project,
    namespace: deletionNamespace(
      Boolean(cluster.deleted_time),
      managementNamespace(placement?.namespace, namespaceTemplate, cluster),
      cluster.id,
    ),
    managementCluster: managementCluster(placement?.managementCluster),
  };
}

function managementNamespace(
  placed: unknown,
  template: string,
  cluster: Cluster,
): ClusterFacts['namespace'] {
  if (unset(placed)) {
    const value = renderNamespace(template, cluster);
    if (DNS_LABEL.test(value) && value !== managementNamespaceOf(cluster.id))
      return {
        ok: false,
        problem: `InvalidManagementNamespace: MANAGEMENT_NAMESPACE_TEMPLATE ${shown(template)} gives ${shown(value)}, not this cluster's management namespace "${managementNamespaceOf(cluster.id)}"; the admission fence admits only clusters-{id}: unset the template`,
      };
    return DNS_LABEL.test(value)
      ? { ok: true, value }
      : {
          ok: false,
          problem: `MANAGEMENT_NAMESPACE_TEMPLATE ${shown(template)} gives ${shown(value)} for this cluster, which is not a Kubernetes namespace name (a DNS label of at most 63 lowercase letters, digits or "-"); change the template or have the placement adapter report data.namespace`,
        };
  }
  if (typeof placed !== 'string' || !DNS_LABEL.test(placed))
    return {
      ok: false,
      problem: `The placement adapter's data.namespace ${shown(placed)} is not a Kubernetes namespace name (a DNS label of at most 63 lowercase letters, digits or "-")`,
    };
  // Placement is another adapter's data: it may name any namespace, but the pull secret of a
  // cluster goes only to that cluster's own (the admission fence's rule, which the job checks too).
  const own = managementNamespaceOf(cluster.id);
  if (placed !== own)
    return {
      ok: false,
      problem: `InvalidManagementNamespace: the placement adapter's data.namespace ${shown(placed)} is not this cluster's management namespace "${own}"; the pull secret of a cluster may only be written to clusters-{id} (the admission fence enforces the same rule). Fix the placement adapter's report`,
    };
  return { ok: true, value: placed };
}

/**
 * A delete goes on whatever placement reports: the job removes ours from every recorded place and
 * writes nowhere, so a wrong or forged data.namespace (or one an earlier version accepted) must not
 * keep a cluster from being cleaned up. It is launched for the cluster's own namespace.
 */
function deletionNamespace(
  deleting: boolean,
  namespace: ClusterFacts['namespace'],
  clusterId: string,
): ClusterFacts['namespace'] {
  return deleting && !namespace.ok
    ? { ok: true, value: managementNamespaceOf(clusterId) }
    : namespace;
}

function managementCluster(placed: unknown): ClusterFacts['managementCluster'] {
  if (unset(placed)) return { ok: true };
  if (typeof placed === 'string' && DNS_LABEL.test(placed)) return { ok: true, value: placed };
  return {
    ok: false,
    problem: `The placement adapter's data.managementCluster ${shown(placed)} is not a management cluster name (a DNS label of at most 63 lowercase letters, digits or "-")`,
  };
}

/** Statuses by adapter name, as CEL preconditions see them (`statuses.dns`). */
export function statusesByAdapter(
  statuses: readonly AdapterStatus[],
): Record<string, AdapterStatus> {
  return Object.fromEntries(statuses.map((s) => [s.adapter, s]));
}

/**
 * True when the spec holds something at `path`. A value of the wrong type still counts: the job then
 * reports exactly what is wrong with it (InvalidPullSecret) instead of "no pull secret".
 */
export function hasPullSecretInSpec(cluster: Cluster, path: string): boolean {
  const value = readPath(cluster, path);
  return (
    value !== undefined && value !== null && !(typeof value === 'string' && value.trim() === '')
  );
}
