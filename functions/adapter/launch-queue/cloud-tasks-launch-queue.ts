import { GrpcStatus as status } from '../../../shared/gcp/grpc-status';
import type { CloudTasksClient } from '../../../shared/gcp/lazy/cloud-tasks';
import { callTimeoutMs, retryFitsDelivery } from '../../../shared/events/delivery-deadline';
import { grpcCode, isTransientGrpcError, toAdapterError } from '../../../shared/gcp/grpc-failure';
import { timestampToIso } from '../../../shared/gcp/timestamp';
import type { Logger } from '../../../shared/logging/logger';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import { withRetry } from '../../../shared/retry/with-retry';
import { TRACE_ATTRIBUTES } from '../../../shared/tracing/attributes';
import { SpanKind, withSpan } from '../../../shared/tracing/spans';
import type { LaunchRequest } from '../../../shared/launch/execution-env';
import type { EnqueueResult, LaunchQueue, QueuedTask } from './launch-queue';
import { runJobHttpRequest, type RunJobTarget } from './run-job-target';
import { batchRunJobHttpRequest, type BatchLaunch } from './batch-launch';

export interface CloudTasksLaunchQueueOptions {
  readonly target: RunJobTarget;
  readonly timeoutMs: number;
  /** CreateTask is retried in-process on UNAVAILABLE and the like: the name makes it idempotent. */
  readonly retry: RetryPolicy;
  readonly logger: Logger;
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * LaunchQueue over Cloud Tasks. CreateTask with a name is idempotent: a retry after a lost answer
 * gets ALREADY_EXISTS, which is what a duplicate gets too, so a transient failure is retried here
 * (with backoff and jitter, while the delivery has time) and never leaves two launches.
 */
export class CloudTasksLaunchQueue implements LaunchQueue {
  constructor(
    private readonly client: CloudTasksClient,
    private readonly options: CloudTasksLaunchQueueOptions,
  ) {}

  enqueue(task: string, request: LaunchRequest): Promise<EnqueueResult> {
    return withSpan(
      'cloudtasks.CreateTask',
      { [TRACE_ATTRIBUTES.clusterId]: request.clusterId },
      async () => {
        // Built inside the span: the execution continues this span's trace (TRACEPARENT override).
        const httpRequest = runJobHttpRequest(request, this.options.target);
        return withRetry(() => this.createTask(task, httpRequest), {
          policy: this.options.retry,
          isRetryable: (error) => isTransientGrpcError(error),
          ...(this.options.sleep ? { sleep: this.options.sleep } : {}),
          onRetry: ({ error, retry, delayMs }) => {
            if (!retryFitsDelivery(delayMs)) throw error;
            this.options.logger.warn('Cloud Tasks CreateTask failed, retrying', {
              cluster_id: request.clusterId,
              retry,
              delay_ms: delayMs,
              error: error instanceof Error ? error.message : String(error),
            });
          },
        }).catch((error: unknown) => {
          throw toAdapterError(error, this.context('CreateTask', queueOfTask(task)));
        });
      },
      { kind: SpanKind.CLIENT },
    );
  }

  enqueueBatch(task: string, batch: BatchLaunch): Promise<EnqueueResult> {
    return withSpan(
      'cloudtasks.CreateTask',
      {},
      async () => {
        const httpRequest = batchRunJobHttpRequest(batch, this.options.target);
        return withRetry(() => this.createTask(task, httpRequest), {
          policy: this.options.retry,
          isRetryable: (error) => isTransientGrpcError(error),
          ...(this.options.sleep ? { sleep: this.options.sleep } : {}),
          onRetry: ({ error, retry, delayMs }) => {
            if (!retryFitsDelivery(delayMs)) throw error;
            this.options.logger.warn('Cloud Tasks CreateTask (batch) failed, retrying', {
              task,
              retry,
              delay_ms: delayMs,
              error: error instanceof Error ? error.message : String(error),
            });
          },
        }).catch((error: unknown) => {
          throw toAdapterError(error, this.context('CreateTask', queueOfTask(task)));
        });
      },
      { kind: SpanKind.CLIENT },
    );
  }

  async inspect(task: string): Promise<QueuedTask | undefined> {
    try {
      const [found] = await this.client.getTask(
        { name: task, responseView: 'BASIC' },
        { timeout: callTimeoutMs(this.options.timeoutMs, 'GetTask') },
      );
      const last = found.lastAttempt;
      const responseTime = timestampToIso(last?.responseTime);
      return {
        dispatchCount: Number(found.dispatchCount ?? 0),
        ...(last?.responseStatus
          ? {
              lastAttempt: {
                code: last.responseStatus.code ?? status.UNKNOWN,
                message: last.responseStatus.message ?? '',
                ...(responseTime ? { responseTime } : {}),
              },
            }
          : {}),
      };
    } catch (error) {
      if (grpcCode(error) === status.NOT_FOUND) return undefined;
      throw toAdapterError(error, this.context('GetTask', task));
    }
  }

  async cancel(task: string): Promise<void> {
    try {
      await this.client.deleteTask(
        { name: task },
        { timeout: callTimeoutMs(this.options.timeoutMs, 'DeleteTask') },
      );
    } catch (error) {
      if (grpcCode(error) === status.NOT_FOUND) return;
      throw toAdapterError(error, this.context('DeleteTask', task));
    }
  }

  private async createTask(
    name: string,
    httpRequest: ReturnType<typeof runJobHttpRequest>,
  ): Promise<EnqueueResult> {
    try {
      // The task's own queue (a management cluster's, or the fleet's): its name says which.
      await this.client.createTask(
        { parent: queueOfTask(name), task: { name, httpRequest } },
        // The client's own retry is off: ours knows the delivery's deadline.
        { timeout: callTimeoutMs(this.options.timeoutMs, 'CreateTask'), retry: null },
      );
      return 'queued';
    } catch (error) {
      if (grpcCode(error) === status.ALREADY_EXISTS) return 'already-queued';
      throw error;
    }
  }

  /** What a failure names: the call, its resource, and the grant that gives the adapter it. */
  private context(operation: 'CreateTask' | 'GetTask' | 'DeleteTask', resource: string) {
    return {
      service: 'Cloud Tasks',
      operation,
      resource,
      identityHint:
        operation === 'CreateTask'
          ? "the adapter's service account (roles/cloudtasks.enqueuer on the queue, and iam.serviceAccounts.actAs on the launcher account)"
          : "the adapter's service account (its launch tasks role on the queue: cloudtasks.tasks.get and cloudtasks.tasks.delete)",
    };
  }
}

/** `projects/P/locations/L/queues/Q/tasks/T` -> `projects/P/locations/L/queues/Q`. */
const queueOfTask = (task: string): string => task.slice(0, task.lastIndexOf('/tasks/'));
