import { readTrace } from '../../traces/trace-reader';
import { latestTraceOf } from './latest-reconcile';
import { waterfallRows } from './waterfall';
import type { StoredSpan } from '../../traces/stored-span';

/** A trace found in the store, with the spans to draw. */
export interface FoundTrace {
  readonly traceId: string;
  readonly spans: StoredSpan[];
}

/**
 * The trace to show: `traceId` when given, else the cluster's latest reconcile. Undefined when
 * the store has no such trace (or no span named the cluster yet).
 */
export function findTrace(
  dir: string,
  query: { clusterId?: string; traceId?: string },
): FoundTrace | undefined {
  const traceId =
    query.traceId?.toLowerCase() ??
    (query.clusterId ? latestTraceOf(dir, query.clusterId) : undefined);
  if (!traceId) return undefined;
  const spans = readTrace(dir, traceId);
  return spans.length > 0 ? { traceId, spans } : undefined;
}

/** The JSON form of a trace (`npm run trace -- --json`, the console): rows in tree order. */
export function traceJson(found: FoundTrace, clusterId?: string): Record<string, unknown> {
  return {
    traceId: found.traceId,
    ...(clusterId ? { clusterId } : {}),
    spans: waterfallRows(found.spans).map((r) => ({
      depth: r.depth,
      name: r.span.name,
      service: r.span.service,
      kind: r.span.kind,
      spanId: r.span.spanId,
      ...(r.span.parentSpanId ? { parentSpanId: r.span.parentSpanId } : {}),
      startOffsetMs: Number(r.startOffsetMs.toFixed(3)),
      durationMs: Number(r.durationMs.toFixed(3)),
      from: r.from,
      to: r.to,
      status: r.span.status.code,
      details: r.details,
    })),
  };
}
