import type { AdapterStatus, Cluster } from '../../shared/hyperfleet/schemas';
import { readPath } from '../../shared/object-path';
import type { ClusterFacts } from './decide';

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * What the decision needs from the cluster and the other adapters' statuses: the GCP project id
 * (current `spec.platform.gcp.projectID` or older `spec.gcp.projectId`) and the management
 * namespace (placement's `data.namespace`, else `clusters-{id}`).
 */
export function clusterFacts(cluster: Cluster, statuses: readonly AdapterStatus[]): ClusterFacts {
  const project = [
    readPath(cluster.spec, 'platform.gcp.projectID'),
    readPath(cluster.spec, 'gcp.projectId'),
  ].find((v): v is string => typeof v === 'string' && v !== '');
  const placed = statuses.find((s) => s.adapter === 'placement')?.data?.namespace;
  let namespace: ClusterFacts['namespace'];
  if (placed === undefined || placed === null || placed === '')
    namespace = { ok: true, value: `clusters-${cluster.id}` };
  else if (typeof placed === 'string' && DNS_LABEL.test(placed))
    namespace = { ok: true, value: placed };
  else
    namespace = {
      ok: false,
      problem: `The placement adapter's data.namespace ${JSON.stringify(String(placed).slice(0, 80))} is not a Kubernetes namespace name (a DNS label of at most 63 lowercase letters, digits or "-")`,
    };
  return {
    clusterId: cluster.id,
    clusterName: cluster.name,
    generation: cluster.generation,
    deleting: Boolean(cluster.deleted_time),
    gcpProjectId: project,
    namespace,
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
