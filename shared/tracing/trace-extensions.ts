import * as z from 'zod';
import { parseTraceparent } from './traceparent';

/** A W3C trace context carried by a message (CloudEvents extensions, Pub/Sub attributes). */
export interface CarriedTrace {
  readonly traceparent: string;
  readonly tracestate?: string;
}

// W3C Trace Context: vendors must propagate at least 512 characters of tracestate; longer is dropped.
export const TRACESTATE_MAX = 512;

/** What the schema makes of a message's trace fields: the trace, and why a present one was not used. */
export interface ParsedTraceExtensions {
  readonly trace?: CarriedTrace;
  /** Set when a traceparent was present but is not a string in W3C format (a debug note). */
  readonly ignored?: string;
}

/**
 * `traceparent` and `tracestate` as they arrive (CloudEvents Distributed Tracing extension,
 * Pub/Sub message attributes), parsed by one schema: a traceparent must be a string in W3C format
 * (the parser of traceparent.ts), a tracestate a string of at most 512 characters. A bad field
 * is dropped, never the message: tracing must not cost a reconcile or a status.
 */
export const traceExtensionsSchema = z
  .looseObject({
    traceparent: z.unknown().optional(),
    tracestate: z.string().max(TRACESTATE_MAX).optional().catch(undefined),
  })
  .transform(({ traceparent, tracestate }): ParsedTraceExtensions => {
    if (traceparent === undefined || traceparent === null) return {};
    const valid = z
      .string()
      .refine((text) => parseTraceparent(text) !== undefined)
      .safeParse(traceparent);
    if (!valid.success)
      return {
        ignored: 'traceparent is not a valid W3C traceparent (version-traceid-spanid-flags)',
      };
    return {
      trace: {
        traceparent: valid.data.trim(),
        ...(tracestate?.trim() ? { tracestate: tracestate.trim() } : {}),
      },
    };
  });

/** The trace a message's fields name, if a valid one (never throws). */
export function parseTraceExtensions(fields: unknown): ParsedTraceExtensions {
  const parsed = traceExtensionsSchema.safeParse(
    fields !== null && typeof fields === 'object' ? fields : {},
  );
  return parsed.success ? parsed.data : {};
}
