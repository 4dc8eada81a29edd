import {
  SpanKind,
  SpanStatusCode,
  context,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { HTTP_ATTRIBUTES } from './attributes';

export { SpanKind, type Span };
/** Attributes of a span: ids, codes and counts, never secret material. */
export type SpanAttributes = Attributes;

/** The instrumentation scope of every span we make. */
const TRACER_NAME = 'pullsecret-adapter-serverless';

/**
 * Runs `fn` inside a new active span (child of `options.parent`, else of the active context) and
 * ends it however fn ends. A throw marks the span ERROR with the error's class name or code only:
 * messages may quote inputs, and span attributes leave the project for the trace backend.
 * With export off the API's no-op tracer hands back the parent's context, so logs and outgoing
 * traceparents still carry the reconcile's trace id at no cost.
 */
export async function withSpan<T>(
  name: string,
  attributes: SpanAttributes,
  fn: (span: Span) => Promise<T>,
  options: { kind?: SpanKind; parent?: Context } = {},
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = trace
    .getTracer(TRACER_NAME)
    .startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (error) {
    const type = errorType(error);
    span.setAttribute(HTTP_ATTRIBUTES.errorType, type);
    span.setStatus({ code: SpanStatusCode.ERROR, message: type });
    throw error;
  } finally {
    span.end();
  }
}

/** A short, input-free name for a failure: its `code` when it has a string one, else its class. */
export function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(code)) return code;
    const reason = (error as { reason?: unknown }).reason;
    if (typeof reason === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(reason)) return reason;
    return error.constructor?.name || 'Error';
  }
  return typeof error;
}
