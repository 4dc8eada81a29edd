import type { RateLimits, RetryConfig } from './rules';
import type { TokenBucket } from './token-bucket';
import { fromMs, type View } from './wire';

/** One queue as the emulator keeps it. */
export interface QueueRecord {
  readonly name: string;
  /** Only PauseQueue and ResumeQueue change it (Queue.state). */
  state: 'RUNNING' | 'PAUSED';
  rate: RateLimits;
  retry: RetryConfig;
  /** "All tasks that were created before this time were purged." (Queue.purge_time) */
  purgeTimeMs?: number;
  /** Queue.stackdriver_logging_config, kept and echoed: the emulator writes no logs. */
  loggingConfig?: { sampling_ratio?: number };
  readonly bucket: TokenBucket;
  /** Attempts dispatched and not yet answered (max_concurrent_dispatches counts them). */
  inFlight: number;
}

/** google.cloud.tasks.v2.Attempt, in ms; `status` is set once a response (or failure) came. */
export interface AttemptRecord {
  readonly scheduleTimeMs: number;
  readonly dispatchTimeMs: number;
  responseTimeMs?: number;
  /** The worker's HTTP status, when it answered (X-CloudTasks-TaskPreviousResponse of the next). */
  httpStatus?: number;
  status?: { readonly code: number; readonly message: string };
}

/** The HTTP request a task sends, with its authorization mode. */
export interface DispatchRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
  readonly oauthToken?: { readonly serviceAccountEmail: string; readonly scope: string };
  readonly oidcToken?: { readonly serviceAccountEmail: string; readonly audience: string };
}

/** One task as the emulator keeps it. */
export interface TaskRecord {
  readonly name: string;
  readonly queue: string;
  readonly request: DispatchRequest;
  scheduleTimeMs: number;
  readonly createTimeMs: number;
  readonly dispatchDeadlineMs: number;
  dispatchCount: number;
  responseCount: number;
  /** "Only dispatch_time will be set" on first_attempt. */
  firstAttemptDispatchMs?: number;
  lastAttempt?: AttemptRecord;
  /** Every attempt, oldest first (the admin API shows them; Cloud Tasks keeps only the last). */
  readonly attempts: AttemptRecord[];
  /** An attempt is in flight. */
  running: boolean;
}

const renderAttempt = (attempt: AttemptRecord) => ({
  schedule_time: fromMs(attempt.scheduleTimeMs),
  dispatch_time: fromMs(attempt.dispatchTimeMs),
  ...(attempt.responseTimeMs !== undefined
    ? { response_time: fromMs(attempt.responseTimeMs) }
    : {}),
  ...(attempt.status ? { response_status: attempt.status } : {}),
});

/**
 * google.cloud.tasks.v2.Task in `view`. BASIC "omits fields which can be large or can contain
 * sensitive data" and names the body as one (Task.View,
 * https://cloud.google.com/tasks/docs/reference/rest/v2/projects.locations.queues.tasks#view): the
 * emulator omits the body and the headers (up to 80 KB, and where callers put credentials); FULL
 * returns everything. create_time "will be truncated to the nearest second".
 */
export function renderTask(task: TaskRecord, view: View): Record<string, unknown> {
  const { request } = task;
  return {
    name: task.name,
    http_request: {
      url: request.url,
      http_method: request.method,
      ...(view === 'FULL' ? { headers: request.headers } : {}),
      ...(view === 'FULL' && request.body ? { body: request.body } : {}),
      ...(request.oauthToken
        ? {
            oauth_token: {
              service_account_email: request.oauthToken.serviceAccountEmail,
              scope: request.oauthToken.scope,
            },
          }
        : {}),
      ...(request.oidcToken
        ? {
            oidc_token: {
              service_account_email: request.oidcToken.serviceAccountEmail,
              audience: request.oidcToken.audience,
            },
          }
        : {}),
    },
    schedule_time: fromMs(task.scheduleTimeMs),
    create_time: fromMs(Math.floor(task.createTimeMs / 1000) * 1000),
    dispatch_deadline: fromMs(task.dispatchDeadlineMs),
    dispatch_count: task.dispatchCount,
    response_count: task.responseCount,
    ...(task.firstAttemptDispatchMs !== undefined
      ? { first_attempt: { dispatch_time: fromMs(task.firstAttemptDispatchMs) } }
      : {}),
    ...(task.lastAttempt ? { last_attempt: renderAttempt(task.lastAttempt) } : {}),
    view,
  };
}

/** google.cloud.tasks.v2.Queue. */
export function renderQueue(queue: QueueRecord): Record<string, unknown> {
  return {
    name: queue.name,
    rate_limits: {
      max_dispatches_per_second: queue.rate.maxDispatchesPerSecond,
      max_burst_size: queue.rate.maxBurstSize,
      max_concurrent_dispatches: queue.rate.maxConcurrentDispatches,
    },
    retry_config: {
      max_attempts: queue.retry.maxAttempts,
      max_retry_duration: fromMs(queue.retry.maxRetryDurationMs),
      min_backoff: fromMs(queue.retry.minBackoffMs),
      max_backoff: fromMs(queue.retry.maxBackoffMs),
      max_doublings: queue.retry.maxDoublings,
    },
    state: queue.state,
    ...(queue.purgeTimeMs !== undefined ? { purge_time: fromMs(queue.purgeTimeMs) } : {}),
    ...(queue.loggingConfig ? { stackdriver_logging_config: queue.loggingConfig } : {}),
  };
}
