import { retryFitsDelivery } from '../events/delivery-deadline';
import { backoffDelayMs, type RetryPolicy } from './backoff';
import { sleep as realSleep } from '../sleep';

/** What withRetry needs besides the operation. */
export interface RetryOptions {
  readonly policy: RetryPolicy;
  /** Whether a failure is worth another attempt. */
  readonly isRetryable: (error: unknown) => boolean;
  /** Called before each wait, e.g. to log the retry. */
  readonly onRetry?: (info: { error: unknown; retry: number; delayMs: number }) => void;
  /**
   * The delay the other side asked for (e.g. Retry-After), if any. It replaces the backoff when
   * longer; when it exceeds `policy.maxDelayMs` the error is rethrown at once instead: waiting
   * minutes inside a request would hold a function instance and outlast the message's ack
   * deadline, while the caller's own redelivery (Pub/Sub backoff) waits without holding anything.
   */
  readonly requestedDelayMs?: (error: unknown) => number | undefined;
  /** Injectable for tests. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

/**
 * Runs `operation` until it succeeds, fails with a non-retryable error, or runs out of attempts;
 * then rethrows the last error unchanged so the caller can add context. `attempt` starts at 1.
 */
export async function withRetry<T>(
  operation: (attempt: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const sleep = options.sleep ?? realSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (attempt >= options.policy.attempts || !options.isRetryable(error)) throw error;
      const requested = options.requestedDelayMs?.(error);
      if (requested !== undefined && requested > options.policy.maxDelayMs) throw error;
      const backoff = backoffDelayMs(attempt, options.policy, options.random);
      const delayMs = requested === undefined ? backoff : Math.max(requested, backoff);
      // Inside a delivery (Eventarc gives it 10 s) a retry that cannot end in time is not started:
      // the error goes back to Pub/Sub, which redelivers (delivery-deadline.ts).
      if (!retryFitsDelivery(delayMs)) throw error;
      options.onRetry?.({ error, retry: attempt, delayMs });
      await sleep(delayMs);
    }
  }
}
