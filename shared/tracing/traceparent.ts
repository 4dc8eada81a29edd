import { randomBytes } from 'node:crypto';
import {
  ROOT_CONTEXT,
  TraceFlags,
  context,
  createTraceState,
  trace,
  type Context,
  type SpanContext,
} from '@opentelemetry/api';
import { isExporting } from './export-state';

/** The parts of a W3C `traceparent` header (version 00). */
export interface ParsedTraceparent {
  readonly traceId: string;
  readonly spanId: string;
  readonly sampled: boolean;
}

// W3C Trace Context §3.2: version-traceid-parentid-flags, lowercase hex. Version ff is invalid;
// a higher version may append fields after a dash, which we ignore (the spec says to try).
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ALL_ZERO = /^0+$/;

/** Parses a traceparent; undefined when it is absent or invalid (all-zero ids, version ff, ...). */
export function parseTraceparent(text: string | undefined): ParsedTraceparent | undefined {
  const match = TRACEPARENT.exec(text?.trim() ?? '');
  if (!match) return undefined;
  const [, version = '', traceId = '', spanId = '', flags = '', rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (ALL_ZERO.test(traceId) || ALL_ZERO.test(spanId)) return undefined;
  return { traceId, spanId, sampled: (parseInt(flags, 16) & TraceFlags.SAMPLED) !== 0 };
}

/** Formats a version-00 traceparent. */
export function formatTraceparent(parts: ParsedTraceparent): string {
  return `00-${parts.traceId}-${parts.spanId}-${parts.sampled ? '01' : '00'}`;
}

/**
 * The context a unit of work (an event, an execution) continues: the remote parent named by
 * `traceparent`, else a new root. When spans are not exported the new root still gets random ids
 * (not sampled), so the logs of one reconcile share a trace id and travel on to the job; when they
 * are, the root is left to the SDK, whose first span gets fresh ids and the sampler's decision.
 */
export function contextFromTraceparent(traceparent?: string, tracestate?: string): Context {
  const parsed = parseTraceparent(traceparent);
  if (parsed) {
    const spanContext: SpanContext = {
      traceId: parsed.traceId,
      spanId: parsed.spanId,
      traceFlags: parsed.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
      isRemote: true,
      ...(tracestate?.trim() ? { traceState: createTraceState(tracestate.trim()) } : {}),
    };
    return trace.setSpanContext(ROOT_CONTEXT, spanContext);
  }
  if (isExporting()) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
    traceFlags: TraceFlags.NONE,
    isRemote: true,
  });
}

/** The active span's context, when there is a valid one. */
export function currentSpanContext(active: Context = context.active()): SpanContext | undefined {
  const spanContext = trace.getSpanContext(active);
  return spanContext && trace.isSpanContextValid(spanContext) ? spanContext : undefined;
}

/** The traceparent that makes the active span the parent of the receiver's work. */
export function currentTraceparent(): string | undefined {
  const spanContext = currentSpanContext();
  if (!spanContext) return undefined;
  return formatTraceparent({
    traceId: spanContext.traceId,
    spanId: spanContext.spanId,
    sampled: (spanContext.traceFlags & TraceFlags.SAMPLED) !== 0,
  });
}

/** The active span's tracestate (vendor data passed through unchanged), when there is one. */
export function currentTracestate(): string | undefined {
  const serialized = currentSpanContext()?.traceState?.serialize();
  return serialized ? serialized : undefined;
}
