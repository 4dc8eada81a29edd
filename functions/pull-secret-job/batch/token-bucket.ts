/**
 * A token bucket on a clock the caller passes (ms), pure: it holds up to `capacity` tokens and
 * refills at `perSecond`; a new bucket is full. A reservation takes its tokens at once, into debt
 * when there are not enough, and tells the caller how long to wait before spending them, so
 * concurrent callers sharing one rate (a batch task's clusters) queue in the order they asked,
 * none polls and none overtakes another.
 *
 * Not the Cloud Tasks emulator's bucket (emulators/cloud-tasks/token-bucket.ts), on purpose: that
 * one spends a token now or not at all, as a queue dispatches, and an emulator room imports no
 * product code (.dependency-cruiser.cjs).
 */
export class TokenBucket {
  private tokens: number;
  private refilledAt: number;

  constructor(
    private readonly perSecond: number,
    private readonly capacity: number,
    nowMs: number,
  ) {
    if (!(perSecond > 0) || !Number.isFinite(perSecond))
      throw new RangeError(`a token bucket needs a finite rate > 0 a second, got ${perSecond}`);
    if (!(capacity > 0))
      throw new RangeError(`a token bucket needs a capacity > 0, got ${capacity}`);
    this.tokens = capacity;
    this.refilledAt = nowMs;
  }

  /**
   * Takes `count` tokens now, into debt when there are not enough, and returns the ms to wait
   * before spending them (0 when the bucket held them): the time the debt takes to refill.
   */
  reserve(count: number, nowMs: number): number {
    if (!(count >= 0)) throw new RangeError(`a reservation needs a count >= 0, got ${count}`);
    // A clock that steps back refills nothing.
    const elapsed = Math.max(0, nowMs - this.refilledAt);
    this.tokens = Math.min(this.capacity, this.tokens + (elapsed / 1000) * this.perSecond);
    this.refilledAt = Math.max(this.refilledAt, nowMs);
    this.tokens -= count;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.perSecond) * 1000);
  }
}
