import { readClusterIndex, readTrace } from '../../traces/trace-reader';
import { RECONCILE_SPAN } from './latest-reconcile';
import type { ClusterIndexEntry, StoredSpan } from '../../traces/stored-span';

/** One of a cluster's traces as `npm run trace -- CLUSTER_ID --list` prints it. */
export interface TraceSummary {
  readonly traceId: string;
  /** When the trace's first span naming the cluster started (ISO 8601, ms). */
  readonly startedAt: string;
  /** The adapter's decision for the event (launch, skip, ...), when the adapter handled one. */
  readonly decision: string | undefined;
  readonly spanCount: number;
}

/**
 * A cluster's traces newest first, at most `limit`: each trace's start is its earliest span that
 * named the cluster; the decision and the span count come from the trace's own spans. Pure: the
 * trace's spans are looked up through `spansOf`.
 */
export function summarizeTraces(
  entries: readonly ClusterIndexEntry[],
  spansOf: (traceId: string) => readonly StoredSpan[],
  limit: number,
): TraceSummary[] {
  const firstStart = new Map<string, bigint>();
  for (const e of entries) {
    const start = BigInt(e.startUnixNano);
    const known = firstStart.get(e.traceId);
    if (known === undefined || start < known) firstStart.set(e.traceId, start);
  }
  return [...firstStart.entries()]
    .sort(([, a], [, b]) => (a === b ? 0 : a > b ? -1 : 1))
    .slice(0, limit)
    .map(([traceId, start]) => {
      const spans = spansOf(traceId);
      const decision = spans.find((s) => s.name === RECONCILE_SPAN)?.attributes[
        'pullsecret.decision'
      ];
      return {
        traceId,
        startedAt: new Date(Number(start / 1_000_000n)).toISOString(),
        decision: typeof decision === 'string' ? decision : undefined,
        spanCount: spans.length,
      };
    });
}

/** A cluster's recent traces in the store, newest first. */
export function listTracesOf(dir: string, clusterId: string, limit = 20): TraceSummary[] {
  return summarizeTraces(readClusterIndex(dir, clusterId), (id) => readTrace(dir, id), limit);
}

/** The text lines of a list: time, trace id, decision, span count. */
export function renderTraceList(summaries: readonly TraceSummary[]): string[] {
  return summaries.map(
    (s) =>
      `${s.startedAt}  ${s.traceId}  ${(s.decision ?? '-').padEnd(12)}  ${s.spanCount} span${s.spanCount === 1 ? '' : 's'}`,
  );
}
