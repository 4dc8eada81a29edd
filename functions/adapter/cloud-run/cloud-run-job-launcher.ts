import { callTimeoutMs } from '../../../shared/events/delivery-deadline';
import type { v2 } from '@google-cloud/run';
import { toAdapterError } from '../../../shared/gcp/grpc-failure';
import type { Logger } from '../../../shared/logging/logger';
import { timestampToIso } from '../../../shared/gcp/timestamp';
import { TRACE_ATTRIBUTES } from '../../../shared/tracing/attributes';
import { SpanKind, withSpan } from '../../../shared/tracing/spans';
import { runJobOverrideEnv } from './execution-overrides';
import {
  executionEnv,
  type JobLauncher,
  type LaunchedExecution,
  type LaunchRequest,
} from './job-launcher';

/**
 * JobLauncher over Cloud Run Jobs: one RunJob with per-execution env overrides on one job. No
 * retry here: a failed RunJob may still have created the execution, so retrying is the caller's
 * decision, after looking for it (see launch-or-adopt.ts).
 */
export class CloudRunJobLauncher implements JobLauncher {
  constructor(
    private readonly client: v2.JobsClient,
    private readonly jobName: string,
    private readonly options: { timeoutMs: number; logger: Logger },
  ) {}

  /** One RunJob inside a `cloudrun.RunJob` CLIENT span, whose context the execution continues. */
  launch(request: LaunchRequest): Promise<LaunchedExecution> {
    return withSpan(
      'cloudrun.RunJob',
      { [TRACE_ATTRIBUTES.clusterId]: request.clusterId },
      async (span) => {
        const launched = await this.runJob(request);
        span.setAttribute(TRACE_ATTRIBUTES.execution, launched.execution);
        return launched;
      },
      { kind: SpanKind.CLIENT },
    );
  }

  private async runJob(request: LaunchRequest): Promise<LaunchedExecution> {
    // Only allow-listed names: anything else is refused here, before RunJob.
    const env = runJobOverrideEnv(executionEnv(request));
    const context = {
      service: 'Cloud Run',
      operation: 'RunJob',
      resource: this.jobName,
      identityHint:
        "the adapter's service account (roles/run.jobsExecutorWithOverrides on the job)",
    };
    let operation;
    try {
      [operation] = await this.client.runJob(
        { name: this.jobName, overrides: { containerOverrides: [{ env }] } },
        { timeout: callTimeoutMs(this.options.timeoutMs, 'RunJob'), retry: null },
      );
    } catch (error) {
      throw toAdapterError(error, context);
    }
    // The operation's metadata is the Execution; we do not wait for the operation to finish.
    const metadata = operation.metadata as
      { name?: string | null; createTime?: unknown } | null | undefined;
    const execution = metadata?.name ?? undefined;
    const failure = operation.latestResponse?.error;
    if (operation.latestResponse?.done && failure) {
      // The long-running operation already failed. With an execution, that execution ended (its
      // report follows through the reporter or our GetExecution check); without one, nothing ran.
      if (!execution)
        throw toAdapterError({ code: failure.code, details: failure.message }, context);
      this.options.logger.warn(
        `RunJob's operation for ${execution} already failed: ${failure.message ?? `code ${failure.code}`}`,
        { cluster_id: request.clusterId, execution, grpc_code: failure.code ?? undefined },
      );
    }
    if (!execution)
      throw toAdapterError(
        { details: `RunJob on ${this.jobName} returned an operation without an execution name` },
        context,
      );
    const createTime = timestampToIso(metadata?.createTime);
    return { execution, ...(createTime ? { createTime } : {}) };
  }
}
