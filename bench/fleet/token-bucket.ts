/**
 * A token bucket on simulated time (ms) that hands out reservations in the order they are asked
 * for: a call asked at `now` learns the instant it may go, and its token is taken at once, so
 * later callers queue behind it. `capacity` is the burst it allows after being idle.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly perMs: number;

  constructor(
    perMinute: number,
    private readonly capacity = 1,
    start = 0,
  ) {
    if (!(perMinute > 0)) throw new Error(`a token bucket needs a positive rate, got ${perMinute}`);
    this.perMs = perMinute / 60_000;
    this.tokens = capacity;
    this.last = start;
  }

  /** The instant (>= now) the call may be made; its token is taken. */
  take(now: number): number {
    if (this.perMs === Number.POSITIVE_INFINITY) return now;
    // Reservations can run ahead of the caller's clock: refill only for time not yet accounted.
    if (now > this.last) {
      this.tokens = Math.min(this.capacity, this.tokens + (now - this.last) * this.perMs);
      this.last = now;
    }
    this.tokens -= 1;
    return this.tokens >= 0 ? now : this.last + -this.tokens / this.perMs;
  }
}

/** The most entries of `instants` (ms, any order) within any window of `windowMs`. */
export function busiestWindow(instants: readonly number[], windowMs = 60_000): number {
  const sorted = Float64Array.from(instants).sort();
  let best = 0;
  let from = 0;
  for (let to = 0; to < sorted.length; to++) {
    while (sorted[to]! - sorted[from]! >= windowMs) from++;
    best = Math.max(best, to - from + 1);
  }
  return best;
}
