import { TraceFlags, type SpanContext } from '@opentelemetry/api';
import { parseTraceparent } from '../../../shared/tracing/traceparent';

/** Where Cloud Logging lifts a line's trace from (the contract's log fields). */
export interface TraceLogFields {
  readonly 'logging.googleapis.com/trace': string;
  readonly 'logging.googleapis.com/spanId': string;
  readonly 'logging.googleapis.com/trace_sampled': boolean;
}

/**
 * The trace fields of the job's result line, which is written after job.run ended and tracing
 * stopped (outside any span, so the logger cannot add them): job.run's own span. None without a
 * project to file the trace in.
 */
export function traceFieldsOf(
  projectId: string | undefined,
  span: SpanContext | undefined,
): TraceLogFields | Record<string, never> {
  if (!projectId || !span) return {};
  return {
    'logging.googleapis.com/trace': `projects/${projectId}/traces/${span.traceId}`,
    'logging.googleapis.com/spanId': span.spanId,
    'logging.googleapis.com/trace_sampled': (span.traceFlags & TraceFlags.SAMPLED) !== 0,
  };
}

/**
 * The trace fields of a result line written before any span exists (the configuration failed):
 * the adapter's launch span from TRACEPARENT, when it is a valid one, so the failure still sits in
 * the reconcile's trace.
 */
export function traceFieldsFromTraceparent(
  projectId: string | undefined,
  traceparent: string | undefined,
): TraceLogFields | Record<string, never> {
  const parent = parseTraceparent(traceparent);
  if (!projectId || !parent) return {};
  return {
    'logging.googleapis.com/trace': `projects/${projectId}/traces/${parent.traceId}`,
    'logging.googleapis.com/spanId': parent.spanId,
    'logging.googleapis.com/trace_sampled': parent.sampled,
  };
}
