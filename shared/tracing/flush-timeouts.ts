/** Consecutive flush timeouts after which functions stop waiting for flushes. */
export const FLUSH_TIMEOUTS_BEFORE_SKIPPING = 3;

/**
 * Tracks flushes that time out (a hung OTLP endpoint). Without it every event would wait the full
 * flush bound and warn each time. The first timeout of a run is warned; after
 * FLUSH_TIMEOUTS_BEFORE_SKIPPING in a row, flushes are started but not waited for (the exporter's
 * own timeout still bounds each request) until an export succeeds or a flush finishes in time.
 */
export class FlushTimeouts {
  private consecutive = 0;

  constructor(private readonly limit: number = FLUSH_TIMEOUTS_BEFORE_SKIPPING) {}

  /** Whether the next flush is fired and forgotten rather than waited for. */
  get skipping(): boolean {
    return this.consecutive >= this.limit;
  }

  /** Records a timeout; says whether to warn (first of a run) and whether skipping starts now. */
  timedOut(): { readonly warn: boolean; readonly startsSkipping: boolean } {
    this.consecutive += 1;
    return { warn: this.consecutive === 1, startsSkipping: this.consecutive === this.limit };
  }

  /** A flush finished in time, or an export succeeded: the endpoint answers again. */
  answered(): void {
    this.consecutive = 0;
  }
}
