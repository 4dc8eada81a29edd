import { SpanStatusCode, type SpanContext } from '@opentelemetry/api';
import type { JobResult } from '../../../shared/job-result';
import type { Logger } from '../../../shared/logging/logger';
import { HTTP_ATTRIBUTES, TRACE_ATTRIBUTES } from '../../../shared/tracing/attributes';
import { errorType, withSpan, type Span, type SpanAttributes } from '../../../shared/tracing/spans';
import { contextFromTraceparent } from '../../../shared/tracing/traceparent';
import type { JobConfig } from '../config/config';

// The job's trace: one execution inside its root span `job.run`; each phase of it timed, logged,
// run inside its own span, and that span marked failed for a failure the phase returns; and the
// job's spans open now (job.run and the phase in progress), which a termination signal ends.

/**
 * Runs one execution inside its root span `job.run`, the child of the adapter's launch span
 * (TRACEPARENT), or the root of a new trace when the execution was started without one (by hand,
 * or with an invalid TRACEPARENT). The span carries the cluster, the generation, the management
 * cluster and the execution from the start, and the outcome and reason once the run has them; a
 * failed run marks it ERROR with the reason code (never the message: it may quote inputs).
 * `onStart` learns the span's context (the result line names it); the span is tracked as open so
 * a termination signal can end it.
 */
export function withJobRunSpan(
  config: JobConfig,
  run: () => Promise<JobResult>,
  onStart?: (context: SpanContext) => void,
): Promise<JobResult> {
  const parent = contextFromTraceparent(
    config.parentTrace?.traceparent,
    config.parentTrace?.tracestate,
  );
  return withSpan(
    'job.run',
    jobRunAttributes(config),
    (span) => {
      onStart?.(span.spanContext());
      return trackOpenSpan(span, async () => {
        const result = await run();
        span.setAttributes(resultAttributes(result));
        if (result.outcome === 'failed')
          span.setStatus({ code: SpanStatusCode.ERROR, message: result.reason });
        return result;
      });
    },
    { parent },
  );
}

/** What identifies the run, known before it starts. */
export function jobRunAttributes(config: JobConfig): SpanAttributes {
  return {
    [TRACE_ATTRIBUTES.clusterId]: config.clusterId,
    ...(config.generation !== undefined
      ? { [TRACE_ATTRIBUTES.generation]: config.generation }
      : {}),
    ...(config.kubernetes
      ? { [TRACE_ATTRIBUTES.managementCluster]: config.kubernetes.cluster }
      : {}),
    ...(config.execution ? { [TRACE_ATTRIBUTES.execution]: config.execution } : {}),
  };
}

/** How the run ended: the outcome and the reason code only. */
export function resultAttributes(result: JobResult): SpanAttributes {
  return {
    [TRACE_ATTRIBUTES.outcome]: result.outcome,
    [TRACE_ATTRIBUTES.reason]: result.reason,
  };
}

/** Where a phase's timing goes: the result's phases (in order) and durations_ms. */
export interface PhaseRecord {
  readonly phases: JobResult['phases'];
  readonly durations: Record<string, number>;
}

export interface Phase<T> {
  /** The key in durations_ms, and the `phase` log field. */
  readonly name: string;
  /** The span's name (secretmanager.sync, kubernetes.sync); none: timed and logged only. */
  readonly span?: string;
  readonly attributes?: SpanAttributes;
  /** Listed in the result's `phases` (the writing phases are; claim and resolve are not). */
  readonly listed?: JobResult['phases'][number];
  /** A failure the phase returns rather than throws (the span is marked failed with it). */
  readonly failureOf?: (result: T) => unknown;
}

/**
 * One phase of the job: timed into durations_ms, run inside its tracked span (ended by a
 * termination signal too, endOpenSpans) when it has one, and its duration logged at debug level.
 */
export async function runPhase<T>(
  record: PhaseRecord,
  phase: Phase<T>,
  log: Logger,
  fn: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  const started = Date.now();
  if (phase.listed) record.phases.push(phase.listed);
  try {
    if (!phase.span) return await fn(undefined);
    return await withPhaseSpan(phase.span, phase.attributes ?? {}, async (span) => {
      const result = await fn(span);
      const failure = phase.failureOf?.(result);
      if (failure) markPhaseFailed(span, failure);
      return result;
    });
  } finally {
    record.durations[phase.name] = Date.now() - started;
    log.debug(`Phase ${phase.name} ended`, {
      phase: phase.name,
      duration_ms: record.durations[phase.name],
    });
  }
}

/**
 * Marks a phase span failed for a failure the phase returns rather than throws (a Kubernetes
 * write that failed after the Secret Manager write succeeded, for instance).
 */
export function markPhaseFailed(span: Span, failure: unknown): void {
  const type = errorType(failure);
  span.setAttribute(HTTP_ATTRIBUTES.errorType, type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/** The Kubernetes phase's span names the management cluster it writes to. */
export function kubernetesPhaseAttributes(
  kubernetes: NonNullable<JobConfig['kubernetes']>,
): SpanAttributes {
  return { [TRACE_ATTRIBUTES.managementCluster]: kubernetes.cluster };
}

/**
 * The job's spans that are running now (job.run and the phase in progress), so a termination
 * signal, which arrives outside any span's context, can still end them: Cloud Run kills an
 * execution at its task timeout with SIGTERM, and those are the executions operators most need
 * to see in a trace.
 */
const open = new Set<Span>();

/** Runs fn with `span` counted as open until fn settles. */
async function trackOpenSpan<T>(span: Span, fn: () => Promise<T>): Promise<T> {
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
