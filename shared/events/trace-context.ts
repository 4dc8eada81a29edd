import { parseTraceparent } from '../tracing/traceparent';

/** The W3C trace context an event carries (CloudEvents Distributed Tracing extension). */
export interface EventTraceContext {
  readonly traceparent?: string;
  readonly tracestate?: string;
  /** Why a traceparent that was present is not used (logged at debug; never fails the event). */
  readonly ignored?: string;
}

/** Extension attributes of a CloudEvent, as they arrive (top level of the structured JSON). */
export type TraceExtensions = { readonly traceparent?: unknown; readonly tracestate?: unknown };

/**
 * Picks the trace context to continue: Sentinel's own event's `traceparent`/`tracestate`
 * extensions (inside the Pub/Sub message), else the outer delivery's (Eventarc's CloudEvent),
 * else none (the adapter starts a new trace). An invalid traceparent is skipped, not an error:
 * tracing must never cost a reconcile.
 */
export function eventTraceContext(
  inner: TraceExtensions,
  outer?: TraceExtensions,
): EventTraceContext {
  const problems: string[] = [];
  for (const [where, source] of [
    ['event', inner],
    ['delivery', outer],
  ] as const) {
    if (source?.traceparent === undefined || source.traceparent === null) continue;
    const traceparent = String(source.traceparent);
    if (!parseTraceparent(traceparent)) {
      problems.push(
        `${where} traceparent is not a valid W3C traceparent (version-traceid-spanid-flags)`,
      );
      continue;
    }
    const tracestate = typeof source.tracestate === 'string' ? source.tracestate.trim() : '';
    return {
      traceparent: traceparent.trim(),
      ...(tracestate ? { tracestate } : {}),
      ...(problems.length > 0 ? { ignored: problems.join('; ') } : {}),
    };
  }
  return problems.length > 0 ? { ignored: problems.join('; ') } : {};
}
