import type { AdapterStatus, Cluster } from '../../../shared/hyperfleet/schemas';
import { FLEET_STATES, type FleetState } from '../../../shared/status/convergence';
import { clusterRow, type FleetRow } from './cluster-row';

/** What the report is made from: each cluster with every adapter's statuses on it. */
export interface ClusterWithStatuses {
  readonly cluster: Cluster;
  readonly statuses: readonly AdapterStatus[];
}

/**
 * The report `fleet report --json` prints (schema version 1; new fields may be added, none
 * renamed or removed without a new version).
 */
export interface FleetReport {
  readonly schema_version: 1;
  readonly generated_at: string;
  readonly not_converged_after_seconds: number;
  /** The launch queue's state when the report could read it (RUNNING, PAUSED, DISABLED). */
  readonly launch_queue?: { readonly name: string; readonly state: string };
  /** Management clusters whose own launch queue is paused (fleet pause --management-cluster). */
  readonly paused_management_clusters?: readonly string[];
  readonly clusters: readonly FleetRow[];
  readonly summary: {
    readonly total: number;
    /** Every state, zero included, so a consumer reads a count without checking for the key. */
    readonly by_state: Readonly<Record<FleetState, number>>;
    /** Cluster ids, in the clusters' order. */
    readonly not_converged: readonly string[];
    readonly stuck_preconditions: readonly string[];
    readonly permanent_failures: readonly string[];
    /**
     * Clusters per platform default version their status reports (`default_version`), keyed by the
     * number: during a rotation, how many still hold the old one. Clusters on their own pull
     * secret are not counted.
     */
    readonly by_default_version: Readonly<Record<string, number>>;
  };
  /** 0, or 1 when a cluster fails permanently or has not converged past the threshold. */
  readonly exit_code: 0 | 1;
}

/**
 * The fleet report from what was read, at `now`. Pure. Clusters are sorted by id so two reports
 * of the same fleet compare line by line.
 */
export function fleetReport(
  fleet: readonly ClusterWithStatuses[],
  options: {
    readonly now: Date;
    readonly notConvergedAfterMs: number;
    readonly launchQueue?: { readonly name: string; readonly state: string };
    readonly pausedManagementClusters?: readonly string[];
  },
): FleetReport {
  const clusters = fleet
    .map(({ cluster, statuses }) =>
      clusterRow(cluster, statuses, options.now, options.notConvergedAfterMs),
    )
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const byState = Object.fromEntries(FLEET_STATES.map((s) => [s, 0])) as Record<FleetState, number>;
  for (const row of clusters) byState[row.state] += 1;
  const ids = (keep: (row: FleetRow) => boolean) => clusters.filter(keep).map((row) => row.id);
  const notConverged = ids((row) => row.not_converged);
  const permanent = ids((row) => row.permanent_failure);
  return {
    schema_version: 1,
    generated_at: options.now.toISOString(),
    not_converged_after_seconds: Math.round(options.notConvergedAfterMs / 1000),
    ...(options.launchQueue ? { launch_queue: options.launchQueue } : {}),
    ...(options.pausedManagementClusters
      ? { paused_management_clusters: options.pausedManagementClusters }
      : {}),
    clusters,
    summary: {
      total: clusters.length,
      by_state: byState,
      not_converged: notConverged,
      stuck_preconditions: ids((row) => row.stuck_preconditions),
      permanent_failures: permanent,
      by_default_version: countByDefaultVersion(clusters),
    },
    exit_code: notConverged.length > 0 || permanent.length > 0 ? 1 : 0,
  };
}

/** Clusters per default version, the keys in numeric order (newest last). */
function countByDefaultVersion(clusters: readonly FleetRow[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const { default_version: version } of clusters)
    if (version !== undefined) counts.set(version, (counts.get(version) ?? 0) + 1);
  return Object.fromEntries([...counts].sort(([a], [b]) => Number(a) - Number(b)));
}
