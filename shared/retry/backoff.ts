/** How often and how patiently an operation is retried. */
export interface RetryPolicy {
  /** Total attempts including the first; 1 means no retry. */
  readonly attempts: number;
  /** Delay before the second attempt, before jitter. */
  readonly baseDelayMs: number;
  /** Upper bound of any single delay. */
  readonly maxDelayMs: number;
}

/**
 * Delay before retry number `retry` (1 for the first retry): exponential, capped, with "equal
 * jitter" (half fixed, half random) so that a fleet of callers spreads out but each still backs
 * off noticeably.
 */
export function backoffDelayMs(
  retry: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}
