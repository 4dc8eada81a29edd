import { readClusterIndex } from '../../traces/trace-reader';
import type { ClusterIndexEntry } from '../../traces/stored-span';

/** The span that starts a reconcile: the adapter handling one event for the cluster. */
export const RECONCILE_SPAN = 'adapter.handle';

/**
 * What makes a trace a reconcile worth drawing, best first: an execution launched or run for the
 * cluster (the launch, the job, and usually the reporter's status write), else a reporter run of
 * its own (a status write without a launch in this trace), else any event the adapter handled.
 * While a cluster is not Ready, Sentinel re-publishes every few seconds and the adapter skips
 * (in flight, up to date): "newest adapter.handle" would almost always be such a short skip trace.
 */
export const RECONCILE_TIERS: readonly (readonly string[])[] = [
  ['cloudrun.RunJob', 'job.run'],
  ['reporter.handle'],
  [RECONCILE_SPAN],
];

/** The newest entry of a list, by start time. */
function newestEntry(list: readonly ClusterIndexEntry[]): ClusterIndexEntry | undefined {
  return list.reduce<ClusterIndexEntry | undefined>(
    (best, e) => (!best || BigInt(e.startUnixNano) > BigInt(best.startUnixNano) ? e : best),
    undefined,
  );
}

/**
 * The latest reconcile among a cluster's indexed spans: the trace of the newest span of the first
 * tier that has one (RECONCILE_TIERS), else the trace of the newest span naming the cluster at all
 * (e.g. only Sentinel's publish so far).
 */
export function chooseLatestTrace(entries: readonly ClusterIndexEntry[]): string | undefined {
  for (const names of RECONCILE_TIERS) {
    const found = newestEntry(entries.filter((e) => names.includes(e.name)));
    if (found) return found.traceId;
  }
  return newestEntry(entries)?.traceId;
}

/** The cluster's latest reconcile trace id in the store, if any span named the cluster. */
export function latestTraceOf(dir: string, clusterId: string): string | undefined {
  return chooseLatestTrace(readClusterIndex(dir, clusterId));
}
