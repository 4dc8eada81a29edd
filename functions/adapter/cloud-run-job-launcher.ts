import type { v2 } from '@google-cloud/run';
import { isTransientGrpcError, toAdapterError } from '../../shared/gcp/grpc-failure';
import type { Logger } from '../../shared/logging/logger';
import type { RetryPolicy } from '../../shared/retry/backoff';
import { withRetry } from '../../shared/retry/with-retry';
import { executionEnv, type JobLauncher, type LaunchRequest } from './job-launcher';

/** JobLauncher over Cloud Run Jobs: RunJob with per-execution env overrides on one job. */
export class CloudRunJobLauncher implements JobLauncher {
  constructor(
    private readonly client: v2.JobsClient,
    private readonly jobName: string,
    private readonly options: { timeoutMs: number; retry: RetryPolicy; logger: Logger },
  ) {}

  async launch(request: LaunchRequest): Promise<{ execution: string }> {
    const env = Object.entries(executionEnv(request)).map(([name, value]) => ({ name, value }));
    try {
      const [operation] = await withRetry(
        () =>
          this.client.runJob(
            { name: this.jobName, overrides: { containerOverrides: [{ env }] } },
            { timeout: this.options.timeoutMs, retry: null },
          ),
        {
          policy: this.options.retry,
          isRetryable: isTransientGrpcError,
          onRetry: ({ retry, delayMs, error }) =>
            this.options.logger.warn('Cloud Run RunJob failed, retrying', {
              cluster_id: request.clusterId,
              retry,
              delay_ms: delayMs,
              error: error instanceof Error ? error.message : String(error),
            }),
        },
      );
      // The operation's metadata is the Execution; its name is all we need (we do not wait for it).
      const execution = (operation.metadata as { name?: string } | null | undefined)?.name;
      if (!execution)
        throw new Error(
          `RunJob on ${this.jobName} returned an operation without an execution name`,
        );
      return { execution };
    } catch (error) {
      throw toAdapterError(error, {
        service: 'Cloud Run',
        operation: 'RunJob',
        resource: this.jobName,
        identityHint:
          "the adapter's service account (roles/run.jobsExecutorWithOverrides on the job)",
      });
    }
  }
}
