import type { HyperFleetApi } from '../../../shared/hyperfleet/port';
import type { Cluster } from '../../../shared/hyperfleet/schemas';
import type { Logger } from '../../../shared/logging/logger';

// The claim orders executions that reach Secret Manager; it cannot stop an apply that reaches it
// after a delete has finished and its tombstone has expired, nor one whose generation the
// HyperFleet API has already moved past. The cluster itself can: DELETE sets `deleted_time` and
// bumps `generation`, and a spec change bumps `generation` (openshift-hyperfleet/hyperfleet-api-spec,
// schemas/core/openapi.yaml: deleteClusterById, Cluster). So an apply reads the cluster before its
// first write and again before publishing its version (or before the Kubernetes write when it has
// nothing to publish), and stops as superseded when it no longer wants this work
// (docs/design/job-protocol.md, "Nothing comes back after a delete").

/** Why the cluster, as the HyperFleet API has it now, no longer wants this apply. */
export type StaleCluster =
  /** DELETE was requested: the delete execution removes the pull secret everywhere. */
  | { readonly kind: 'deleting'; readonly since: string }
  /** The cluster is gone from the API (deleted and finalized). */
  | { readonly kind: 'gone' }
  /** A newer generation exists: its own execution writes the pull secret it wants. */
  | { readonly kind: 'newer'; readonly generation: number; readonly mine: number };

/**
 * The pure decision on the cluster as just read: undefined while the apply of `generation` is
 * still wanted. Direct runs (no GENERATION) are compared on deletion only.
 */
export function staleCluster(
  cluster: Cluster | undefined,
  generation: number | undefined,
): StaleCluster | undefined {
  if (!cluster) return { kind: 'gone' };
  if (cluster.deleted_time) return { kind: 'deleting', since: cluster.deleted_time };
  if (generation !== undefined && cluster.generation > generation)
    return { kind: 'newer', generation: cluster.generation, mine: generation };
  return undefined;
}

/** The reason, for the warning and the result message. */
export function describeStale(stale: StaleCluster): string {
  switch (stale.kind) {
    case 'deleting':
      return `the cluster is being deleted (deleted_time ${stale.since})`;
    case 'gone':
      return 'the cluster no longer exists in the HyperFleet API';
    case 'newer':
      return `generation ${stale.generation} is newer than this execution's ${stale.mine}`;
  }
}

/**
 * Reads the cluster (unless `known`, a read this run has just made) and decides. Undefined when the
 * API is not configured (direct runs with PULL_SECRET_DATA): the claim and the tombstone are then
 * the only guards.
 */
export async function checkCluster(
  ports: { readonly hyperfleet?: Pick<HyperFleetApi, 'findCluster'> },
  run: { readonly clusterId: string; readonly generation?: number },
  when: 'before the first write' | 'before publishing' | 'before the Kubernetes write',
  log: Logger,
  known?: { readonly cluster: Cluster | undefined },
): Promise<StaleCluster | undefined> {
  if (!ports.hyperfleet && !known) return undefined;
  const cluster = known ? known.cluster : await ports.hyperfleet?.findCluster(run.clusterId);
  const stale = staleCluster(cluster, run.generation);
  if (stale)
    log.warn(`Superseded ${when}: ${describeStale(stale)}`, {
      phase: 'claim',
      operation: 'cluster-check',
      claim: 'superseded',
      stale_cluster: stale.kind,
    });
  return stale;
}

/** checkCluster, answered as the loss the run stands aside for (a cluster that still wants it: undefined). */
export async function supersededBy(
  ...check: Parameters<typeof checkCluster>
): Promise<{ kind: 'superseded'; cluster: StaleCluster } | undefined> {
  const stale = await checkCluster(...check);
  return stale ? { kind: 'superseded', cluster: stale } : undefined;
}
