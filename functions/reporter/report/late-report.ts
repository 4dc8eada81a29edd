import { IN_FLIGHT_REASONS, type OwnStatus } from '../../../shared/status/own-status';
import type { PlannedReport } from '../../../shared/status/planned-report';
import {
  OBSERVED_TIME_FUTURE_WINDOW_MS,
  OBSERVED_TIME_PAST_WINDOW_MS,
} from '../../../shared/status/report-clock';

/** What to do with a planned report, given when it was observed. */
export type ReportTiming =
  | { readonly kind: 'as-observed'; readonly observedAt: Date }
  | { readonly kind: 'needs-current-state' };

/**
 * A report observed inside the API's window is sent with its own observed_time: the API then
 * orders it against newer reports itself (204 for an older one). Outside the window its time is
 * never rewritten (a clamped time can be newer than a status written after the result, and would
 * overwrite it); the current status decides instead, see `decideLateReport`.
 */
export function reportTiming(plan: PlannedReport, now: Date): ReportTiming {
  const observed = Date.parse(plan.observedAt);
  const inWindow =
    Number.isFinite(observed) &&
    observed >= now.getTime() - OBSERVED_TIME_PAST_WINDOW_MS &&
    observed <= now.getTime() + OBSERVED_TIME_FUTURE_WINDOW_MS;
  return inWindow
    ? { kind: 'as-observed', observedAt: new Date(observed) }
    : { kind: 'needs-current-state' };
}

/** A late report: re-derived (sent as observed now) or dropped, always with the reason. */
export type LateReportDecision =
  | { readonly kind: 're-derived'; readonly observedAt: Date; readonly reason: string }
  | { readonly kind: 'drop'; readonly reason: string };

const shortName = (execution: string | undefined) => execution?.split('/').pop();

/**
 * Decides a report whose observed_time is outside the API's window, from our current status.
 * It is re-derived (sent, observed now) only when the current status proves nothing newer was
 * reported since the execution began: no status yet, an older generation, or the "running"
 * report of this very execution. Then the result is what is true now (an execution's outcome
 * does not change), so "observed now" is honest. Anything else is newer than the result and the
 * result is dropped; the adapter's in-flight check covers a report that never lands.
 */
export function decideLateReport(
  plan: PlannedReport,
  own: OwnStatus | undefined,
  now: Date,
): LateReportDecision {
  const observedNow = (reason: string): LateReportDecision => ({
    kind: 're-derived',
    observedAt: now,
    reason,
  });
  if (!own) return observedNow('no status is stored yet');
  if (own.observedGeneration > plan.generation)
    return {
      kind: 'drop',
      reason: `a status for the newer generation ${own.observedGeneration} is stored`,
    };
  if (own.observedGeneration < plan.generation)
    return observedNow(`the stored status is for the older generation ${own.observedGeneration}`);
  const execution = 'execution' in plan.outcome ? shortName(plan.outcome.execution) : undefined;
  const storedExecution = shortName(own.data.execution);
  if (execution === undefined || storedExecution !== execution)
    return {
      kind: 'drop',
      reason: `the stored status at generation ${own.observedGeneration} belongs to ${storedExecution ? `execution ${storedExecution}` : 'another report'} (${own.availableReason ?? 'no Available reason'}), newer than execution ${execution ?? '(unknown)'}`,
    };
  // Running: the `launched` row (JobLaunched; a background run keeps Available=True meanwhile).
  if (!IN_FLIGHT_REASONS.has(own.appliedReason ?? '') && own.availableReason !== 'JobRunning')
    return {
      kind: 'drop',
      reason: `execution ${execution}'s outcome is already reported (${own.availableReason ?? 'no Available reason'})`,
    };
  return observedNow(`the stored status still shows execution ${execution} running`);
}
