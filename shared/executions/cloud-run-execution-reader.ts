import { callTimeoutMs } from '../events/delivery-deadline';
import { GrpcStatus as status } from '../gcp/grpc-status';
import type { protos, v2 } from '@google-cloud/run';
import { grpcCode, isTransientGrpcError, toAdapterError } from '../gcp/grpc-failure';
import { timestampToIso } from '../gcp/timestamp';
import type { Logger } from '../logging/logger';
import type { RetryPolicy } from '../retry/backoff';
import { withRetry } from '../retry/with-retry';
import type { ExecutionReader, ExecutionSummary } from './execution-reader';

type Condition = NonNullable<protos.google.cloud.run.v2.IExecution['conditions']>[number];
const isCompleted = (c: Condition) => c.type === 'Completed';

/**
 * ExecutionReader over the real ExecutionsClient (Cloud Run or its emulator). How an execution
 * ended comes from its Completed condition (state, execution reason); for a failed one, the
 * task's last attempt result (exit code, status) is read with ListTasks, one extra call that only
 * failures pay. Message texts are carried for people and never parsed.
 */
export class CloudRunExecutionReader implements ExecutionReader {
  constructor(
    private readonly client: v2.ExecutionsClient,
    private readonly options: {
      timeoutMs: number;
      retry: RetryPolicy;
      /** Reads the failed task's last attempt; without it, failures are classified less finely. */
      tasks?: v2.TasksClient;
      logger?: Logger;
    },
  ) {}

  async read(name: string): Promise<ExecutionSummary | undefined> {
    let execution;
    try {
      [execution] = await withRetry(
        () =>
          this.client.getExecution(
            { name },
            { timeout: callTimeoutMs(this.options.timeoutMs, 'GetExecution'), retry: null },
          ),
        { policy: this.options.retry, isRetryable: isTransientGrpcError },
      );
    } catch (error) {
      if (grpcCode(error) === status.NOT_FOUND) return undefined;
      throw toAdapterError(error, {
        service: 'Cloud Run',
        operation: 'GetExecution',
        resource: name,
        identityHint: "the reporter's service account (roles/run.viewer on the job)",
      });
    }
    const completed = execution.conditions?.find(isCompleted);
    const state = String(completed?.state ?? '');
    const executionReason = completed?.executionReason
      ? String(completed.executionReason)
      : undefined;
    const env = Object.fromEntries(
      (execution.template?.containers?.[0]?.env ?? []).flatMap((v) =>
        v.name ? [[v.name, v.value ?? '']] : [],
      ),
    );
    const startTime = timestampToIso(execution.startTime) ?? timestampToIso(execution.createTime);
    const completionTime = timestampToIso(execution.completionTime);
    const cancelled = executionReason === 'CANCELLED' || executionReason === 'CANCELLING';
    const succeeded = completed
      ? state === 'CONDITION_SUCCEEDED'
      : Number(execution.succeededCount ?? 0) > 0 && Number(execution.failedCount ?? 0) === 0;
    const failed = completionTime !== undefined && !succeeded && !cancelled;
    const lastAttempt = failed ? await this.lastAttempt(name) : undefined;
    return {
      name,
      env,
      ...(startTime ? { startTime } : {}),
      ...(completionTime ? { completionTime } : {}),
      succeeded,
      cancelled,
      message: completed?.message ?? '',
      ...(executionReason && executionReason !== 'EXECUTION_REASON_UNDEFINED'
        ? { executionReason }
        : {}),
      ...(lastAttempt ? { lastAttempt } : {}),
    };
  }

  /** The failed task's last attempt (the execution's only task, or the first failed one). */
  private async lastAttempt(execution: string): Promise<ExecutionSummary['lastAttempt']> {
    const tasksClient = this.options.tasks;
    if (!tasksClient) return undefined;
    let tasks;
    try {
      [tasks] = await withRetry(
        () =>
          tasksClient.listTasks(
            { parent: execution },
            {
              timeout: callTimeoutMs(this.options.timeoutMs, 'ListTasks'),
              retry: null,
              autoPaginate: true,
            },
          ),
        { policy: this.options.retry, isRetryable: isTransientGrpcError },
      );
    } catch (error) {
      if (grpcCode(error) === status.NOT_FOUND) return undefined;
      const failure = toAdapterError(error, {
        service: 'Cloud Run',
        operation: 'ListTasks',
        resource: execution,
        identityHint: "the reporter's service account (roles/run.viewer on the job)",
      });
      // Transient: Pub/Sub redelivers. Permanent (e.g. a missing permission): the task detail
      // only refines the reason, so the execution is still reported, from its own conditions.
      if (failure.kind === 'transient') throw failure;
      this.options.logger?.warn(`Reporting without the task's exit code: ${failure.message}`, {
        operation: 'list-tasks',
        reason: failure.reason,
      });
      return undefined;
    }
    const task =
      tasks.find((t) => String(t.conditions?.find(isCompleted)?.state) === 'CONDITION_FAILED') ??
      tasks[0];
    const result = task?.lastAttemptResult;
    if (!result) return undefined;
    return {
      ...(result.exitCode ? { exitCode: Number(result.exitCode) } : {}),
      ...(result.status?.code !== undefined && result.status.code !== null
        ? { statusCode: Number(result.status.code) }
        : {}),
    };
  }
}
