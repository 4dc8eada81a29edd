/**
 * The observed_time of a status write: `now`, or 1 ms after `after` when the clock has not passed
 * it. The HyperFleet API stores a report of the same generation only when its observed_time is
 * strictly later than the stored one; an equal time is answered 201 with the stored row, unchanged
 * (hyperfleet-api, pkg/dao/adapter_status.go `Upsert`). So every write of ours takes its own
 * moment, strictly after the last one we know of for the cluster (the one we read, or wrote).
 */
export function nextObservedTime(now: Date, after?: string | Date): Date {
  const last = after === undefined ? Number.NaN : new Date(after).getTime();
  return Number.isFinite(last) && last >= now.getTime() ? new Date(last + 1) : now;
}

/**
 * The HyperFleet API's window for `observed_time`: it refuses a report observed more than 30 min in
 * the past or 5 min in the future ("observed_time must not be more than 30m0s in the past";
 * hyperfleet-api ResourceStatusHandler.Create, decodeAndValidate; our emulator:
 * emulators/hyperfleet-api/status-request.ts). Ours is a minute narrower on each side, for the
 * request's transit and clock skew between us and the API. One definition for the adapter (the
 * time of a state read from Cloud Run) and the reporter (a late report).
 */
export const OBSERVED_TIME_PAST_WINDOW_MS = 29 * 60_000;
/** The future side of the window above (the API's 5 min, less a minute). */
export const OBSERVED_TIME_FUTURE_WINDOW_MS = 4 * 60_000;
