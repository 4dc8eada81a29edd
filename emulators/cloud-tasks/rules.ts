import * as grpc from '@grpc/grpc-js';
import { GrpcError } from '../common/grpc-error';

// Cloud Tasks' rules for names, queue settings and tasks, to read against Google's reference:
// the Queue, Task, RateLimits and RetryConfig messages (google/cloud/tasks/v2/*.proto in
// @google-cloud/tasks, published as https://cloud.google.com/tasks/docs/reference/rest/v2/projects.locations.queues
// and .../projects.locations.queues.tasks) and the limits page
// https://cloud.google.com/tasks/docs/quotas.

const invalid = (message: string) => new GrpcError(grpc.status.INVALID_ARGUMENT, message);

/** `projects/PROJECT_ID/locations/LOCATION_ID`: PROJECT_ID letters, digits, `-`, `:`, `.` (Queue.name). */
const LOCATION = /^projects\/[A-Za-z0-9\-:.]+\/locations\/[A-Za-z0-9-]+$/;
/** "QUEUE_ID can contain letters ([A-Za-z]), numbers ([0-9]), or hyphens (-). The maximum length is 100 characters." */
const QUEUE_ID = /^[A-Za-z0-9-]{1,100}$/;
/**
 * "TASK_ID can contain only letters ([A-Za-z]), numbers ([0-9]), hyphens (-), or underscores (_).
 * The maximum length is 500 characters." (Task.name)
 */
const TASK_ID = /^[A-Za-z0-9_-]{1,500}$/;

/** Checks a queue's parent (`projects/P/locations/L`); INVALID_ARGUMENT otherwise. */
export function requireLocation(parent: string): string {
  if (!LOCATION.test(parent))
    throw invalid(
      `Invalid resource field value in the request: parent "${parent}" must be projects/PROJECT_ID/locations/LOCATION_ID.`,
    );
  return parent;
}

/** Checks a queue name under `parent` (when given); returns it. */
export function requireQueueName(name: string, parent?: string): string {
  const slash = name.lastIndexOf('/queues/');
  const location = slash < 0 ? '' : name.slice(0, slash);
  const id = slash < 0 ? '' : name.slice(slash + '/queues/'.length);
  if (!LOCATION.test(location) || !QUEUE_ID.test(id))
    throw invalid(
      `Queue.name "${name}" must be projects/PROJECT_ID/locations/LOCATION_ID/queues/QUEUE_ID, where QUEUE_ID contains only letters ([A-Za-z]), numbers ([0-9]) or hyphens (-) and is at most 100 characters.`,
    );
  if (parent !== undefined && location !== parent)
    throw invalid(`Queue.name "${name}" is not in the parent "${parent}" of the request.`);
  return name;
}

/** Checks a caller-given task name: it must be in `queue` and its id valid; returns it. */
export function requireTaskName(name: string, queue: string): string {
  const prefix = `${queue}/tasks/`;
  if (!name.startsWith(prefix))
    throw invalid(
      `Task.name "${name}" must be ${prefix}TASK_ID: a task is named inside the queue it is created in.`,
    );
  const id = name.slice(prefix.length);
  if (!TASK_ID.test(id))
    throw invalid(
      `Task.name: the task id "${id.slice(0, 80)}${id.length > 80 ? '…' : ''}" (${id.length} characters) is invalid: TASK_ID can contain only letters ([A-Za-z]), numbers ([0-9]), hyphens (-), or underscores (_), and is at most 500 characters.`,
    );
  return name;
}

/** The queue a task name belongs to (`.../queues/Q/tasks/T` → `.../queues/Q`). */
export function queueOfTask(name: string): string {
  const index = name.lastIndexOf('/tasks/');
  return index < 0 ? '' : name.slice(0, index);
}

/** Rate limits as the emulator keeps them. */
export interface RateLimits {
  readonly maxDispatchesPerSecond: number;
  /** Output only: derived from maxDispatchesPerSecond (maxBurstSizeFor). */
  readonly maxBurstSize: number;
  readonly maxConcurrentDispatches: number;
}

/** Retry settings as the emulator keeps them (durations in ms). */
export interface RetryConfig {
  /** -1: unlimited. */
  readonly maxAttempts: number;
  /** 0: unlimited task age. */
  readonly maxRetryDurationMs: number;
  readonly minBackoffMs: number;
  readonly maxBackoffMs: number;
  readonly maxDoublings: number;
}

/**
 * What Cloud Tasks picks for a field left unset at CreateQueue ("If unspecified when the queue is
 * created, Cloud Tasks will pick the default"): the defaults the queue configuration page lists
 * (https://cloud.google.com/tasks/docs/configuring-queues): 500 dispatches a second, 1,000
 * concurrent, 100 attempts, backoff 0.1 s to 3,600 s doubling 16 times, no age limit.
 */
export const DEFAULT_RATE = { maxDispatchesPerSecond: 500, maxConcurrentDispatches: 1000 } as const;
export const DEFAULT_RETRY: RetryConfig = {
  maxAttempts: 100,
  maxRetryDurationMs: 0,
  minBackoffMs: 100,
  maxBackoffMs: 3_600_000,
  maxDoublings: 16,
};

/** "The maximum allowed value is 500." (RateLimits.max_dispatches_per_second) */
export const MAX_DISPATCHES_PER_SECOND = 500;
/** "The maximum allowed value is 5,000." (RateLimits.max_concurrent_dispatches) */
export const MAX_CONCURRENT_DISPATCHES = 5000;

/**
 * RateLimits.max_burst_size is output only: "Cloud Tasks will pick the value of max_burst_size
 * based on the value of max_dispatches_per_second", without publishing how. A queue with the
 * default 500 a second reports 100; the emulator scales that (a fifth of the rate, at least 1, at
 * most 100), so a slow queue sends no burst larger than a second's worth of dispatches. This is
 * the emulator's choice, not a documented formula.
 */
export function maxBurstSizeFor(maxDispatchesPerSecond: number): number {
  return Math.min(100, Math.max(1, Math.ceil(maxDispatchesPerSecond / 5)));
}

/** Validates rate limits (after defaults): the documented bounds, with what to change. */
export function checkRateLimits(rate: Omit<RateLimits, 'maxBurstSize'>): RateLimits {
  const perSecond = rate.maxDispatchesPerSecond;
  if (!(perSecond > 0) || perSecond > MAX_DISPATCHES_PER_SECOND)
    throw invalid(
      `Queue.rate_limits.max_dispatches_per_second must be greater than 0 and at most ${MAX_DISPATCHES_PER_SECOND} (got ${perSecond}).`,
    );
  const concurrent = rate.maxConcurrentDispatches;
  if (!Number.isInteger(concurrent) || concurrent < 1 || concurrent > MAX_CONCURRENT_DISPATCHES)
    throw invalid(
      `Queue.rate_limits.max_concurrent_dispatches must be a whole number from 1 to ${MAX_CONCURRENT_DISPATCHES} (got ${concurrent}).`,
    );
  return { ...rate, maxBurstSize: maxBurstSizeFor(perSecond) };
}

/** Validates a retry config (after defaults): "Must be >= -1", backoffs ordered, doublings >= 0. */
export function checkRetryConfig(retry: RetryConfig): RetryConfig {
  if (!Number.isInteger(retry.maxAttempts) || retry.maxAttempts < -1)
    throw invalid(
      `Queue.retry_config.max_attempts must be -1 (unlimited) or more (got ${retry.maxAttempts}).`,
    );
  if (retry.minBackoffMs < 0 || retry.maxBackoffMs < retry.minBackoffMs)
    throw invalid(
      `Queue.retry_config.min_backoff (${retry.minBackoffMs} ms) must not exceed max_backoff (${retry.maxBackoffMs} ms).`,
    );
  if (!Number.isInteger(retry.maxDoublings) || retry.maxDoublings < 0)
    throw invalid(
      `Queue.retry_config.max_doublings must be 0 or more (got ${retry.maxDoublings}).`,
    );
  if (retry.maxRetryDurationMs < 0)
    throw invalid('Queue.retry_config.max_retry_duration must not be negative.');
  return retry;
}

/** Task limits (https://cloud.google.com/tasks/docs/quotas, and the fields' own comments). */
export const TASK_LIMITS = {
  /** "The maximum task size is 100KB." (tasks.create) */
  maxTaskBytes: 100 * 1024,
  /** "The maximum allowed URL length is 2083 characters after encoding." (HttpRequest.url) */
  maxUrlChars: 2083,
  /** "The size of the headers must be less than 80KB." (HttpRequest.headers) */
  maxHeaderBytes: 80 * 1024,
  /** Maximum schedule time for a task: 30 days from the current date and time (quotas page). */
  maxScheduleAheadMs: 30 * 24 * 3_600_000,
  /** HTTP tasks: "the default is 10 minutes. The deadline must be in the interval [15 seconds, 30 minutes]." */
  defaultDeadlineMs: 10 * 60_000,
  minDeadlineMs: 15_000,
  maxDeadlineMs: 30 * 60_000,
} as const;

/** "A request body is allowed only if the HTTP method is POST, PUT, or PATCH." (HttpRequest.body) */
export const METHODS_WITH_BODY: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/**
 * "If the task's queue was created using Cloud Tasks, then another task with the same name can't
 * be created for ~1hour after the original task was deleted or executed." (CreateTaskRequest.task,
 * "Task De-duplication"; https://cloud.google.com/tasks/docs/reference/rest/v2/projects.locations.queues.tasks/create)
 */
export const TASK_TOMBSTONE_MS = 3_600_000;
/**
 * "If you delete a queue, you must wait 7 days before creating a queue with the same name."
 * (https://cloud.google.com/tasks/docs/reference/rest/v2/projects.locations.queues/delete)
 */
export const QUEUE_TOMBSTONE_MS = 7 * 24 * 3_600_000;
