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
