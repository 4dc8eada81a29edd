import { SpanStatusCode, type SpanContext } from '@opentelemetry/api';
import type { JobResult } from '../../../shared/job-result';
import { TRACE_ATTRIBUTES } from '../../../shared/tracing/attributes';
import { withSpan, type SpanAttributes } from '../../../shared/tracing/spans';
import { contextFromTraceparent } from '../../../shared/tracing/traceparent';
import type { JobConfig } from '../config/config';
import { trackOpenSpan } from './phase';

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

/** The Kubernetes phase's span names the management cluster it writes to. */
export function kubernetesPhaseAttributes(
  kubernetes: NonNullable<JobConfig['kubernetes']>,
): SpanAttributes {
  return { [TRACE_ATTRIBUTES.managementCluster]: kubernetes.cluster };
}
