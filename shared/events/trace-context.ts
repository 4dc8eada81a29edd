import { parseTraceExtensions } from '../tracing/trace-extensions';

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
 * The trace context to continue: Sentinel's own event's `traceparent`/`tracestate` extensions
 * (inside the Pub/Sub message), else none (a new root; the sampler decides). Never the outer
 * delivery's: functions-framework copies the HTTP `traceparent` header into every CloudEvent, and
 * Cloud Run's front end sets that header, unsampled, on almost every request — continuing it
 * would make a parent-based sampler drop every reconcile Sentinel did not trace itself. An
 * invalid traceparent is skipped, not an error: tracing must never cost a reconcile.
 */
export function eventTraceContext(event: TraceExtensions): EventTraceContext {
  const { trace, ignored } = parseTraceExtensions(event);
  if (ignored) return { ignored: `event ${ignored}` };
  return trace ? { ...trace } : {};
}
