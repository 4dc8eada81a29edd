/**
 * A queue's dispatch rate, as RateLimits.max_burst_size describes it: "Each queue has a token
 * bucket that holds tokens, up to the maximum specified by max_burst_size. Each time a task is
 * dispatched, a token is removed from the bucket. Tasks will be dispatched until the queue's
 * bucket runs out of tokens. The bucket will be continuously refilled with new tokens based on
 * max_dispatches_per_second." (https://cloud.google.com/tasks/docs/reference/rest/v2/projects.locations.queues#ratelimits)
 * A new bucket is full.
 */
export class TokenBucket {
  private tokens: number;
  private refilledAt: number;

  constructor(
    private perSecond: number,
    private capacity: number,
    nowMs: number,
  ) {
    this.tokens = capacity;
    this.refilledAt = nowMs;
  }

  /** New limits (UpdateQueue): the tokens held so far stay, up to the new capacity. */
  reconfigure(perSecond: number, capacity: number, nowMs: number): void {
    this.refill(nowMs);
    this.perSecond = perSecond;
    this.capacity = capacity;
    this.tokens = Math.min(this.tokens, capacity);
  }

  /** Takes a token if there is one. */
  take(nowMs: number): boolean {
    this.refill(nowMs);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** When the next whole token is there (now when there is one). */
  nextTokenAt(nowMs: number): number {
    this.refill(nowMs);
    if (this.tokens >= 1) return nowMs;
    return nowMs + Math.ceil(((1 - this.tokens) / this.perSecond) * 1000);
  }

  private refill(nowMs: number): void {
    const elapsed = Math.max(0, nowMs - this.refilledAt);
    this.tokens = Math.min(this.capacity, this.tokens + (elapsed / 1000) * this.perSecond);
    this.refilledAt = nowMs;
  }
}
