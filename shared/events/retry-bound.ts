/**
 * When a delivery that keeps failing stops being retried. Eventarc's own subscription has no
 * dead-letter policy (the provider cannot set one), so without a bound Pub/Sub would redeliver a
 * failing event until its retention ends. The function bounds it itself: an event published longer
 * ago than the maximum age, or seen failing the maximum number of times, is acknowledged and
 * logged instead of thrown. With push subscriptions (dead-letter topic present) the same bounds
 * apply harmlessly. Pure: the caller supplies the clock and the failure count.
 */

export interface RetryBoundSettings {
  /** Older events are acknowledged unhandled (EVENT_MAX_AGE). */
  readonly maxAgeMs: number;
  /** Failures of one message (by id, in this instance) after which it is acknowledged (EVENT_MAX_FAILURES). */
  readonly maxFailures: number;
}

export type RetryBoundReason = 'age' | 'failures';

export type RetryBoundDecision =
  | { readonly kind: 'within-bounds' }
  | { readonly kind: 'exceeded'; readonly reason: RetryBoundReason; readonly detail: string };

const WITHIN: RetryBoundDecision = { kind: 'within-bounds' };

const minutes = (ms: number) => `${Math.round(ms / 6_000) / 10} min`;

/**
 * Before handling: is the event too old to be worth handling? An unknown or unreadable publish
 * time, or one in the future (clock skew), never exceeds the bound: only the failure count can.
 */
export function checkEventAge(
  publishTime: string | undefined,
  now: Date,
  settings: RetryBoundSettings,
): RetryBoundDecision {
  if (publishTime === undefined) return WITHIN;
  const published = Date.parse(publishTime);
  if (!Number.isFinite(published)) return WITHIN;
  const age = now.getTime() - published;
  if (age <= settings.maxAgeMs) return WITHIN;
  return {
    kind: 'exceeded',
    reason: 'age',
    detail: `published ${publishTime}, ${minutes(age)} ago, older than EVENT_MAX_AGE (${minutes(settings.maxAgeMs)})`,
  };
}

/** After a failure: `failures` counts this one. At the bound the message is acknowledged. */
export function checkFailureCount(
  failures: number,
  settings: RetryBoundSettings,
): RetryBoundDecision {
  if (failures < settings.maxFailures) return WITHIN;
  return {
    kind: 'exceeded',
    reason: 'failures',
    detail: `failed ${failures} times in this instance, the EVENT_MAX_FAILURES bound (${settings.maxFailures})`,
  };
}
