import type { LaunchRequest } from '../../../shared/launch/execution-env';
import type { BatchLaunch } from './batch-launch';

/** What CreateTask did with a named launch task. */
export type EnqueueResult =
  /** This call created the task: Cloud Tasks will dispatch RunJob at the queue's rate. */
  | 'queued'
  /**
   * ALREADY_EXISTS: a task of that name exists or existed within the dedupe window (another
   * instance or an earlier delivery took the same decision): the launch is already made.
   */
  | 'already-queued';

/** The last dispatch of a task, as Cloud Tasks recorded it (`Task.last_attempt`). */
export interface TaskAttempt {
  /** gRPC code of `response_status` (Cloud Tasks maps the target's HTTP status to it). */
  readonly code: number;
  readonly message: string;
  readonly responseTime?: string;
}

/** A task still in the queue: not dispatched yet, or dispatched and answered with a failure. */
export interface QueuedTask {
  readonly dispatchCount: number;
  readonly lastAttempt?: TaskAttempt;
}

/**
 * The launch queue (Cloud Tasks): holds the fleet-wide launch rate and concurrency, retries RunJob
 * on 429/5xx with backoff, can be paused, and names each launch so that every instance taking the
 * same decision makes the same task (task-name.ts). A dispatched task is deleted by Cloud Tasks,
 * so `inspect` finds only tasks that wait or whose RunJob failed.
 */
export interface LaunchQueue {
  /** Creates the named task that runs the job for `request`. */
  enqueue(task: string, request: LaunchRequest): Promise<EnqueueResult>;
  /** Creates the named task that runs a batch execution (batch-launch.ts). */
  enqueueBatch(task: string, batch: BatchLaunch): Promise<EnqueueResult>;
  /** The task while it is in the queue; undefined once dispatched (or exhausted, or deleted). */
  inspect(task: string): Promise<QueuedTask | undefined>;
  /** Deletes a task refused for good, so the queue stops retrying it; a missing task is fine. */
  cancel(task: string): Promise<void>;
}
