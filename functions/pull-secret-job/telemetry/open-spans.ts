import { SpanStatusCode } from '@opentelemetry/api';
import { TRACE_ATTRIBUTES } from '../../../shared/tracing/attributes';
import { withSpan, type Span, type SpanAttributes } from '../../../shared/tracing/spans';

/**
 * The job's spans that are running now (job.run and the phase in progress), so a termination
 * signal, which arrives outside any span's context, can still end them: Cloud Run kills an
 * execution at its task timeout with SIGTERM, and those are the executions operators most need
 * to see in a trace.
 */
const open = new Set<Span>();

/** Runs fn with `span` counted as open until fn settles. */
export async function trackOpenSpan<T>(span: Span, fn: () => Promise<T>): Promise<T> {
  open.add(span);
  try {
    return await fn();
  } finally {
    open.delete(span);
  }
}

/** `withSpan` for a phase of the job, tracked while it runs. */
export function withPhaseSpan<T>(
  name: string,
  attributes: SpanAttributes,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return withSpan(name, attributes, (span) => trackOpenSpan(span, () => fn(span)));
}

/**
 * Marks every open span ERROR with the reason and ends it, the innermost (the running phase)
 * first. The code that started them ends them again later, if it ever gets to: a no-op on an
 * ended span. Returns how many were ended.
 */
export function endOpenSpans(reason: string): number {
  const spans = [...open].reverse();
  for (const span of spans) {
    span.setAttribute(TRACE_ATTRIBUTES.reason, reason);
    span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
    span.end();
  }
  open.clear();
  return spans.length;
}
