import type { HyperFleetClient } from '../../../shared/hyperfleet/client';
import type { Cluster } from '../../../shared/hyperfleet/schemas';
import type { Logger } from '../../../shared/logging/logger';
import { chooseForBatch, selectedBySpec, type BatchSelectionContext } from './batch-selection';
import type { ClusterRunner } from './cluster-runner';
import type { HeldManagementClusters } from './held-management-clusters';

// One cluster in a batch task: what is read for it, the choice, a paused management cluster, the
// run, and how it is counted in the task's `batch-finished` entry.

export /** Counts one task reports in its `batch-finished` entry (the fleet alerts read it). */
interface BatchCounts {
  clusters_listed: number;
  clusters_applied: number;
  clusters_failed: number;
  /** Another run held the claim (a duplicate or newer work): this batch wrote nothing there. */
  clusters_stood_aside: number;
  clusters_skipped: number;
  /** Of the skipped: in the adapter's hands (not converged, in flight, moving). */
  clusters_left_to_adapter: number;
  /** Of the skipped: on a management cluster whose launch queue is paused. */
  clusters_held: number;
  /** ms the task's clusters waited for Connect Gateway tokens, summed (concurrent waits add up). */
  paced_ms: number;
}

export interface TaskRun {
  readonly runner: ClusterRunner;
  readonly counts: BatchCounts;
  readonly logger: Logger;
}

/**
 * One cluster: the selector and spec first (no read for a cluster outside it), then its statuses,
 * the choice, a paused management cluster, the run. A failure here is this cluster's alone: it is
 * counted and logged, and the task goes on with the others.
 */
export async function runCluster(
  cluster: Cluster,
  on: {
    hyperfleet: HyperFleetClient;
    context: BatchSelectionContext;
    held: HeldManagementClusters | undefined;
    /** DEFAULT_MANAGEMENT_CLUSTER: where a cluster without a placement choice is. */
    defaultManagementCluster: string | undefined;
    run: TaskRun;
  },
): Promise<'applied' | 'failed' | 'stood-aside' | 'skipped'> {
  const { counts, logger, runner } = on.run;
  const skip = (why: string, reason: 'not-selected' | 'adapter' | 'held') => {
    counts.clusters_skipped++;
    if (reason === 'adapter') counts.clusters_left_to_adapter++;
    if (reason === 'held') counts.clusters_held++;
    logger.debug(`Cluster ${cluster.id} skipped: ${why}`, {
      cluster_id: cluster.id,
      decision: 'batch-skip',
    });
    return 'skipped' as const;
  };
  try {
    const outside = selectedBySpec(cluster, on.context);
    if (outside) return skip(outside.why, outside.reason);
    const statuses = await on.hyperfleet.listStatuses(cluster.id);
    const choice = chooseForBatch(cluster, statuses, on.context);
    if (choice.kind === 'skip') return skip(choice.why, choice.reason);
    const placed = choice.request.managementCluster ?? on.defaultManagementCluster;
    if (on.held && placed !== undefined && (await on.held.isHeld(placed)))
      return skip(`management cluster ${placed} is paused`, 'held');
    const result = await runner.run(choice.request);
    if (result.outcome === 'failed') {
      counts.clusters_failed++;
      return 'failed';
    }
    if (result.outcome === 'stood-aside') {
      counts.clusters_stood_aside++;
      return 'stood-aside';
    }
    counts.clusters_applied++;
    return 'applied';
  } catch (error) {
    counts.clusters_failed++;
    logger.error(
      `Cluster ${cluster.id} not run: ${error instanceof Error ? error.message : String(error)}`,
      { cluster_id: cluster.id, decision: 'batch-cluster-failed' },
    );
    return 'failed';
  }
}
