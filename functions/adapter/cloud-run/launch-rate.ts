/**
 * Keeps this instance's RunJob calls under its share of the region's "Job run requests per minute
 * per region" quota (Cloud Run Admin API; its default is not published: check the project's quota
 * page). A token bucket over an injected clock, no I/O:
 * - The share is LAUNCH_RATE_PER_MINUTE / LAUNCH_RATE_INSTANCES. Terraform sets the instances to
 *   the function's max_instance_count, and Cloud Run never runs more instances than that, so the
 *   shares add up to at most the region's budget whatever the traffic.
 * - The bucket holds a sixth of the share (at least 1 token) and refills with the rest, evenly, so
 *   that in ANY 60 s window the instance calls RunJob at most `burst + refill` = its share times:
 *   under a quota counted over a rolling minute as well as one refilled by the minute. A sixth is
 *   what refills in 10 s, Sentinel's re-send interval for a cluster not yet reconciled: a backlog's
 *   re-sends come in waves 10 s apart (clusters created together are re-sent together), and a
 *   smaller bucket would overflow between two waves and lose that budget.
 * - Background launches (a periodic resync, a reported drift) take a token only from a full bucket;
 *   launches for new work (a first event, a new generation, a retry) from any token. While new work
 *   keeps the bucket from filling, background launches wait: they yield.
 * - A RESOURCE_EXHAUSTED from RunJob (someone else spent the quota, or the budget is set above it)
 *   empties the bucket and pauses every launch of the instance: 10 s, doubled with each refusal in
 *   a row up to the quota's 60 s window, so duplicates of the event do not each call RunJob again.
 */
export type LaunchPriority = 'new-work' | 'background';

/** LAUNCH_RATE_PER_MINUTE (0: no rate, only the pause after a refusal) and LAUNCH_RATE_INSTANCES. */
export interface LaunchRateSettings {
  readonly perMinute: number;
  readonly instances: number;
}

export type Admission =
  { readonly kind: 'granted' } | { readonly kind: 'wait'; readonly ms: number };

const MINUTE_MS = 60_000;
const FIRST_PAUSE_MS = 10_000;
const MAX_PAUSE_MS = MINUTE_MS;

/** The launch reasons that give way to new work (the drift helper's `drift-reported` included). */
const BACKGROUND_REASONS: ReadonlySet<string> = new Set(['resync', 'drift-reported']);

/** How a launch reason ranks when the budget is short. */
export function launchPriority(reason: string): LaunchPriority {
  return BACKGROUND_REASONS.has(reason) ? 'background' : 'new-work';
}

/** The bucket's size and refill for a share, or undefined when there is no rate. */
export function bucketShape(
  settings: LaunchRateSettings,
): { readonly burst: number; readonly refillPerMinute: number } | undefined {
  if (settings.perMinute <= 0) return undefined;
  const share = settings.perMinute / settings.instances;
  const burst = Math.max(1, Math.floor(share / 6));
  return { burst, refillPerMinute: share - burst };
}

export class LaunchRate {
  private readonly shape: ReturnType<typeof bucketShape>;
  private tokens: number;
  private updatedAt: number;
  private pausedUntil = Number.NEGATIVE_INFINITY;
  private refusalsInARow = 0;

  constructor(
    settings: LaunchRateSettings,
    private readonly now: () => number = Date.now,
  ) {
    this.shape = bucketShape(settings);
    if (this.shape && this.shape.refillPerMinute <= 0)
      throw new Error(
        `a launch rate of ${settings.perMinute}/min over ${settings.instances} instances leaves no refill: the share must be over 1 a minute`,
      );
    this.tokens = this.shape?.burst ?? 0;
    this.updatedAt = this.now();
  }

  /** Takes a token now, or says how long until one is there for a launch of this priority. */
  take(priority: LaunchPriority): Admission {
    const now = this.now();
    const paused = this.pausedUntil - now;
    if (!this.shape) return paused > 0 ? { kind: 'wait', ms: Math.ceil(paused) } : GRANTED;
    this.refill(now);
    const needed = priority === 'background' ? this.shape.burst : 1;
    if (paused <= 0 && this.tokens >= needed) {
      this.tokens -= 1;
      return GRANTED;
    }
    const refillMs = ((needed - this.tokens) * MINUTE_MS) / this.shape.refillPerMinute;
    return { kind: 'wait', ms: Math.max(1, Math.ceil(Math.max(paused, refillMs))) };
  }

  /** RunJob was refused for quota: empty the bucket and pause; returns the pause in ms. */
  exhausted(): number {
    const now = this.now();
    this.refill(now);
    this.tokens = 0;
    const pause = Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** this.refusalsInARow);
    this.refusalsInARow++;
    this.pausedUntil = now + pause;
    return pause;
  }

  /** RunJob went through: the next refusal pauses from the start again. */
  succeeded(): void {
    this.refusalsInARow = 0;
  }

  private refill(now: number): void {
    if (!this.shape) return;
    const elapsed = Math.max(0, now - this.updatedAt);
    this.tokens = Math.min(
      this.shape.burst,
      this.tokens + (elapsed * this.shape.refillPerMinute) / MINUTE_MS,
    );
    this.updatedAt = now;
  }
}

const GRANTED: Admission = { kind: 'granted' };
