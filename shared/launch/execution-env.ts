import type { Operation } from '../status/outcome';
import { secretManagerSecretId } from '../pull-secret/names';
import { currentTraceparent, currentTracestate } from '../tracing/traceparent';

/** Where the job finds the pull secret: a reference, never the bytes. */
export type PullSecretReference =
  | {
      readonly source: 'cluster-spec';
      readonly specPath: string;
      readonly additionalSpecPath: string;
    }
  | {
      readonly source: 'secret-manager';
      readonly version: string;
      readonly additionalSpecPath: string;
    };

/** One execution to start. */
export interface LaunchRequest {
  readonly clusterId: string;
  readonly clusterName: string;
  readonly generation: number;
  readonly gcpProjectId: string;
  readonly namespace: string;
  /** Placement's data.managementCluster; absent: the job's default cluster. */
  readonly managementCluster?: string;
  readonly operation: Operation;
  readonly attempt: number;
  /** The launch task's id (launch-queue/task-name.ts), passed to the execution as LAUNCH_ID. */
  readonly launchId: string;
  readonly pullSecret: PullSecretReference;
}

/** W3C trace context the execution continues (its `job.run` span is the launch span's child). */
export interface ExecutionTraceContext {
  readonly traceparent?: string;
  readonly tracestate?: string;
}

/** The active span's trace context (the queue calls executionEnv inside its CreateTask span). */
const activeTraceContext = (): ExecutionTraceContext => ({
  traceparent: currentTraceparent(),
  tracestate: currentTracestate(),
});

/**
 * The per-execution environment: identifiers and references only, never secret material.
 * TRACEPARENT/TRACESTATE carry the trace into the execution (the W3C names, upper-cased as env
 * variables, as OpenTelemetry's environment carrier spells them).
 */
export function executionEnv(
  request: LaunchRequest,
  trace: ExecutionTraceContext = activeTraceContext(),
): Record<string, string> {
  const reference: Record<string, string> =
    request.pullSecret.source === 'cluster-spec'
      ? { PULL_SECRET_SOURCE: 'cluster-spec', PULL_SECRET_SPEC_PATH: request.pullSecret.specPath }
      : {
          PULL_SECRET_SOURCE: 'secret-manager',
          PULL_SECRET_SECRET_VERSION: request.pullSecret.version,
        };
  return {
    CLUSTER_ID: request.clusterId,
    CLUSTER_NAME: request.clusterName,
    GENERATION: String(request.generation),
    GCP_PROJECT_ID: request.gcpProjectId,
    SECRET_NAME: secretManagerSecretId(request.clusterId),
    MANAGEMENT_NAMESPACE: request.namespace,
    ...(request.managementCluster ? { MANAGEMENT_CLUSTER: request.managementCluster } : {}),
    OPERATION: request.operation,
    LAUNCH_ATTEMPT: String(request.attempt),
    LAUNCH_ID: request.launchId,
    ...reference,
    PULL_SECRET_ADDITIONAL_SPEC_PATH: request.pullSecret.additionalSpecPath,
    ...(trace.traceparent ? { TRACEPARENT: trace.traceparent } : {}),
    ...(trace.traceparent && trace.tracestate ? { TRACESTATE: trace.tracestate } : {}),
  };
}
