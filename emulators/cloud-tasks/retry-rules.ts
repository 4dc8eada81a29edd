import type { RetryConfig } from './rules';

// When a failed attempt is retried, and when a task is given up, as RetryConfig documents it
// (google/cloud/tasks/v2/queue.proto; https://cloud.google.com/tasks/docs/reference/rest/v2/RetryConfig).

/**
 * The delay before the retry that follows the `failures`-th failed attempt (1 = after the first).
 * "A task's retry interval starts at min_backoff, then doubles max_doublings times, then
 * increases linearly, and finally retries at intervals of max_backoff": with 10 s, 300 s and 3
 * doublings, "10s, 20s, 40s, 80s, 160s, 240s, 300s, 300s, ...". The linear step is the last
 * doubled interval (2^max_doublings × min_backoff).
 */
export function backoffMs(retry: RetryConfig, failures: number): number {
  const step = Math.max(0, failures - 1);
  const doubled = retry.minBackoffMs * 2 ** Math.min(step, retry.maxDoublings);
  const linear = step > retry.maxDoublings ? doubled * (step - retry.maxDoublings) : 0;
  return Math.min(retry.maxBackoffMs, doubled + linear);
}

/**
 * Whether a task that has been attempted `attempts` times, first at `firstAttemptMs`, gets no
 * further attempt at `nowMs`. "Cloud Tasks stops retrying only when maxAttempts and
 * maxRetryDuration are both satisfied": a limit left unlimited (-1 attempts, 0 duration) is not
 * one of them, so with one limit set that one decides, and with neither the task is retried
 * "until the maximum task retention limit is reached" (which the emulator does not model).
 */
export function retriesExhausted(
  retry: RetryConfig,
  attempts: number,
  firstAttemptMs: number,
  nowMs: number,
): boolean {
  const limits: boolean[] = [];
  if (retry.maxAttempts !== -1) limits.push(attempts >= retry.maxAttempts);
  if (retry.maxRetryDurationMs > 0) limits.push(nowMs - firstAttemptMs >= retry.maxRetryDurationMs);
  return limits.length > 0 && limits.every(Boolean);
}

/**
 * The retry delay a worker asked for with `Retry-After` (seconds or an HTTP date), which Cloud
 * Tasks "considered" on a 429 or 503 (HttpRequest: "if the worker returns 429 (Too Many
 * Requests), 503 (Service Unavailable), or the rate of errors is high, Cloud Tasks will use a
 * higher backoff rate. The retry specified in the Retry-After HTTP response header is
 * considered."). The emulator waits the longer of it and the queue's backoff; the unpublished
 * "higher backoff rate" of system throttling is not modelled.
 */
export function retryAfterMs(
  httpStatus: number,
  header: string | null,
  nowMs: number,
): number | undefined {
  if ((httpStatus !== 429 && httpStatus !== 503) || !header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
