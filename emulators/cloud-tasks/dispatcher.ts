import type { RequestLog } from '../common/request-log';
import { sendAttempt, type MintToken } from './http-attempt';
import type { QueueBook } from './queue-book';
import type { AttemptRecord, QueueRecord, TaskRecord } from './records';
import { backoffMs, retriesExhausted, retryAfterMs } from './retry-rules';

/** How the dispatcher is driven: by its own timers (real time), or only by `tick()` calls (tests). */
export type DispatchMode = 'auto' | 'manual';

export interface DispatcherOptions {
  readonly now: () => number;
  readonly mode: DispatchMode;
  readonly mintToken: MintToken;
  readonly mintIdToken: MintToken;
  readonly requests: RequestLog;
}

/**
 * Sends due tasks to their targets as a queue allows and applies each answer: a 2xx deletes the
 * task ("If the worker ... acknowledges the task by returning a successful HTTP response code
 * ([200 - 299]), the task will be removed from the queue"), anything else (or no answer) records
 * the attempt and schedules a retry per the queue's RetryConfig, or deletes the task when retries
 * are exhausted (HttpRequest and RetryConfig,
 * https://cloud.google.com/tasks/docs/reference/rest/v2/projects.locations.queues.tasks#httprequest).
 * A queue dispatches while RUNNING, at most `max_concurrent_dispatches` at once and as fast as its
 * token bucket allows; PAUSED, "Cloud Tasks will stop delivering tasks from it" (Queue.State).
 */
export class Dispatcher {
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly book: QueueBook,
    private readonly options: DispatcherOptions,
  ) {}

  /**
   * Starts an attempt of every task due now that its queue's rate and concurrency allow, oldest
   * schedule first; returns the names of the tasks started and when the next one may be due.
   */
  tick(): { readonly started: readonly string[]; readonly nextDueMs?: number } {
    const now = this.options.now();
    const started: string[] = [];
    let nextDueMs: number | undefined;
    const consider = (at: number) =>
      (nextDueMs = nextDueMs === undefined ? at : Math.min(nextDueMs, at));
    for (const queue of this.book.queues.values()) {
      if (queue.state !== 'RUNNING') continue;
      const waiting = this.book
        .tasksOf(queue.name)
        .filter((t) => !t.running)
        .sort((a, b) => a.scheduleTimeMs - b.scheduleTimeMs || a.createTimeMs - b.createTimeMs);
      for (const task of waiting) {
        if (task.scheduleTimeMs > now) {
          consider(task.scheduleTimeMs);
          break;
        }
        // Concurrency first: a finishing attempt wakes the dispatcher, so no timer is needed.
        if (queue.inFlight >= queue.rate.maxConcurrentDispatches) break;
        if (!queue.bucket.take(now)) {
          consider(queue.bucket.nextTokenAt(now));
          break;
        }
        this.attempt(queue, task);
        started.push(task.name);
      }
    }
    return { started, ...(nextDueMs !== undefined ? { nextDueMs } : {}) };
  }

  /**
   * When `tick()` may next start an attempt: the earliest waiting task's schedule time, or the
   * queue's next rate token if that comes later; undefined when no task waits in a running queue
   * (or every such queue is at its concurrency, which an answer frees). Only `queue` when named.
   * Changes nothing: a driver of a virtual clock (manual mode) moves its clock there and ticks.
   */
  nextDue(only?: string): number | undefined {
    const now = this.options.now();
    let next: number | undefined;
    for (const queue of this.book.queues.values()) {
      if (only !== undefined && queue.name !== only) continue;
      if (queue.state !== 'RUNNING' || queue.inFlight >= queue.rate.maxConcurrentDispatches)
        continue;
      let earliest: number | undefined;
      for (const task of this.book.tasksOf(queue.name))
        if (!task.running) earliest = Math.min(earliest ?? Infinity, task.scheduleTimeMs);
      if (earliest === undefined) continue;
      const at = Math.max(earliest, queue.bucket.nextTokenAt(now));
      next = Math.min(next ?? Infinity, at);
    }
    return next;
  }

  /**
   * RunTask: "Cloud Tasks will dispatch the task, even if the task is already running, the queue
   * has reached its RateLimits or is PAUSED." The returned task shows the dispatch.
   */
  runNow(task: TaskRecord): void {
    this.attempt(this.book.queue(task.queue), task);
  }

  /** Resolves when no attempt is in flight (those started meanwhile included). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** Something changed (a task, a queue's state or settings, an answer): dispatch what is due. */
  wake(): void {
    if (this.options.mode !== 'auto' || this.stopped) return;
    clearTimeout(this.timer);
    const { nextDueMs } = this.tick();
    if (nextDueMs === undefined) return;
    const delay = Math.max(1, nextDueMs - this.options.now());
    this.timer = setTimeout(() => this.wake(), delay);
  }

  /** Stops dispatching and waits for the attempts in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.idle();
  }

  private attempt(queue: QueueRecord, task: TaskRecord): void {
    const now = this.options.now();
    const attempt: AttemptRecord = { scheduleTimeMs: task.scheduleTimeMs, dispatchTimeMs: now };
    const previousResponse = task.lastAttempt?.httpStatus;
    const context = {
      retryCount: task.dispatchCount,
      executionCount: task.responseCount,
      ...(previousResponse !== undefined ? { previousResponse } : {}),
      mintToken: this.options.mintToken,
      mintIdToken: this.options.mintIdToken,
    };
    task.dispatchCount += 1;
    task.firstAttemptDispatchMs ??= now;
    task.lastAttempt = attempt;
    task.attempts.push(attempt);
    task.running = true;
    queue.inFlight += 1;
    const done = (async () => {
      const outcome = await sendAttempt(task, context);
      queue.inFlight -= 1;
      task.running = false;
      attempt.responseTimeMs = this.options.now();
      attempt.status = outcome.status;
      if (outcome.httpStatus !== undefined) attempt.httpStatus = outcome.httpStatus;
      if (outcome.httpStatus !== undefined) task.responseCount += 1;
      this.options.requests.add({
        method: 'Dispatch',
        target: task.name,
        outcome: outcome.httpStatus ?? outcome.status.message,
      });
      this.settle(task, outcome.httpStatus, outcome.retryAfter ?? null);
    })();
    this.inFlight.add(done);
    void done.finally(() => {
      this.inFlight.delete(done);
      this.wake();
    });
  }

  /** After an answer: delete on success, retry after the backoff, or give up. */
  private settle(
    task: TaskRecord,
    httpStatus: number | undefined,
    retryAfter: string | null,
  ): void {
    // Deleted (DeleteTask, PurgeQueue, DeleteQueue) while the attempt was in flight.
    if (this.book.tasks.get(task.name) !== task) return;
    const now = this.options.now();
    const queue = this.book.queue(task.queue);
    if (httpStatus !== undefined && httpStatus >= 200 && httpStatus < 300) {
      this.book.finish(task);
      return;
    }
    if (
      retriesExhausted(queue.retry, task.dispatchCount, task.firstAttemptDispatchMs ?? now, now)
    ) {
      this.book.finish(task);
      return;
    }
    const asked = httpStatus === undefined ? undefined : retryAfterMs(httpStatus, retryAfter, now);
    task.scheduleTimeMs = now + Math.max(backoffMs(queue.retry, task.dispatchCount), asked ?? 0);
  }
}
