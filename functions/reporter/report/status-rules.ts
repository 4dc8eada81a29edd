// The reporter's rules against our stored status, in one place: what a start report may record,
// which failures are a stray execution's, and the observed_time a report is written with. Each
// rule is pure: handle-report.ts reads our status (and the claim, when a rule asks for it) and
// writes or logs what these decide.
import type { JobStarted } from '../../../shared/job-result';
import type { Claim } from '../../../shared/pull-secret/claim';
import {
  IN_FLIGHT_REASONS,
  keptConvergence,
  type OwnStatus,
} from '../../../shared/status/own-status';
import type { PlannedReport } from '../../../shared/status/planned-report';
import { nextObservedTime } from '../../../shared/status/report-clock';
import { decideLateReport, reportTiming } from './late-report';

/** A report the stored status keeps from being written: why, and the log's decision. */
export interface Withheld {
  readonly skip: string;
  readonly decision: string;
  /** `warn` for what an operator should see (a stray failure, a dropped late report). */
  readonly severity: 'info' | 'warn';
}

/** A report to write, and the observed_time to write it with. */
export interface TimedReport {
  readonly plan: PlannedReport;
  readonly observedTime: Date;
  /** Said in the log before the write (a late report re-derived as observed now). */
  readonly note?: { readonly decision: string; readonly message: string };
}

const withheld = (
  decision: string,
  skip: string,
  severity: 'info' | 'warn' = 'info',
): Withheld => ({
  skip,
  decision,
  severity,
});

/** A start that arrived before the adapter recorded its launch: retried, not dropped. */
export const START_BEFORE_QUEUED = 'start-before-queued';

/** `projects/.../executions/e` or `e` -> `e`. */
const shortName = (execution: string | undefined) => execution?.split('/').pop();

/** The execution a report is about, and its launch attempt, when the outcome says. */
function reportedLaunch(plan: PlannedReport): { execution?: string; attempt?: number } {
  const outcome = plan.outcome;
  return {
    ...('execution' in outcome && outcome.execution ? { execution: outcome.execution } : {}),
    ...('attempt' in outcome && outcome.attempt !== undefined ? { attempt: outcome.attempt } : {}),
  };
}

/**
 * The `launched` report of a started execution, written only while our status at its generation
 * is still the `JobQueued` row of the same operation and attempt: anything else is newer news (the
 * run already finished, a newer launch was queued) or the start of a second execution of the same
 * task (Cloud Tasks delivers at least once), whose start must not replace the first one's.
 */
export function recordStart(
  started: JobStarted,
  own: OwnStatus | undefined,
  jobName: string,
  now: Date,
): TimedReport | Withheld {
  const what = `the start of execution ${started.execution} (generation ${started.generation}, ${started.operation} attempt ${started.attempt})`;
  // The execution can start before the adapter's `queued` write lands (Cloud Tasks dispatches at
  // once): the start is tried again (redelivered) until that row is there to record it against.
  if (!own || own.observedGeneration < started.generation)
    return withheld(
      START_BEFORE_QUEUED,
      `${what} is not recorded yet: no queued status at generation ${started.generation} (${own ? `the status is at generation ${own.observedGeneration}` : 'no status yet'})`,
    );
  if (own.observedGeneration > started.generation)
    return withheld(
      'start-of-older-launch',
      `${what} is not recorded: the status is at the newer generation ${own.observedGeneration}`,
    );
  const sameLaunch =
    own.data.operation === started.operation && own.data.attempt === started.attempt;
  if (own.appliedReason === 'JobQueued' && sameLaunch) {
    const kept = own.available === 'True' ? keptConvergence(own) : undefined;
    const plan: PlannedReport = {
      clusterId: started.cluster_id,
      generation: started.generation,
      observedAt: started.started_at,
      outcome: {
        kind: 'launched',
        operation: started.operation,
        execution: `${jobName}/executions/${started.execution}`,
        launchedAt: started.started_at,
        attempt: started.attempt,
        ...(own.data.task ? { task: own.data.task } : {}),
        ...(own.data.launch_reason ? { launchReason: own.data.launch_reason } : {}),
        ...(kept ? { kept } : {}),
      },
    };
    // A start that reaches us late is still true now: the status has not moved on since.
    const timing = reportTiming(plan, now);
    const at = timing.kind === 'as-observed' ? timing.observedAt : now;
    return { plan, observedTime: nextObservedTime(at, own.lastReportTime) };
  }
  if ((own.data.attempt ?? 0) < started.attempt)
    return withheld(
      START_BEFORE_QUEUED,
      `${what} is not recorded yet: the status still shows attempt ${own.data.attempt ?? '(none)'} (${own.appliedReason ?? 'no Applied reason'})`,
    );
  if ((own.data.attempt ?? 0) > started.attempt)
    return withheld(
      'start-of-older-launch',
      `${what} is not recorded: attempt ${own.data.attempt} is newer (${own.appliedReason ?? 'no Applied reason'})`,
    );
  if (own.appliedReason === 'JobLaunched' && sameLaunch)
    return shortName(own.data.execution) === started.execution
      ? withheld('start-already-recorded', `${what} is already recorded`)
      : withheld(
          'start-of-stray-execution',
          `${what} is not recorded: execution ${shortName(own.data.execution) ?? '(unknown)'} of the same launch already reported its start (a second execution of the same task, from Cloud Tasks' at-least-once delivery)`,
        );
  return withheld(
    'start-after-finish',
    `${what} is not recorded: the status has moved on (${own.appliedReason ?? 'no Applied reason'}${own.data.attempt !== undefined ? `, attempt ${own.data.attempt}` : ''})`,
  );
}

/**
 * Whether our status alone lets a failure be reported: it is absent, at another generation (the
 * API orders generations itself), names this execution (full or short form), or names no
 * execution but the same attempt (a queued launch, a refused one). Otherwise only the claim can
 * tell the claim holder's failure from a stray execution's (`claim-decides`).
 */
export function failureStanding(
  plan: PlannedReport,
  own: OwnStatus | undefined,
): 'report' | 'claim-decides' {
  if (!own || own.observedGeneration !== plan.generation) return 'report';
  const { execution, attempt } = reportedLaunch(plan);
  const stored = shortName(own.data.execution);
  if (stored !== undefined) return stored === shortName(execution) ? 'report' : 'claim-decides';
  return own.data.attempt !== undefined && own.data.attempt === attempt
    ? 'report'
    : 'claim-decides';
}

/**
 * A failure our status does not vouch for is reported only when the claim names its execution:
 * else it is a stray's (a second execution of a task, an older launch) and must not overwrite the
 * winner's report. `claim` is undefined when there is none, or it could not be read.
 */
export function strayFailure(
  plan: PlannedReport,
  own: OwnStatus | undefined,
  claim: Claim | undefined,
): Withheld | undefined {
  const execution = shortName(reportedLaunch(plan).execution);
  if (execution !== undefined && claim?.execution === execution) return undefined;
  const stored = own?.data.execution
    ? `execution ${shortName(own.data.execution)}`
    : `attempt ${own?.data.attempt ?? '(none)'}`;
  return withheld(
    'stray-failure',
    `the failure of execution ${execution ?? '(unknown)'} is not reported: our status at generation ${plan.generation} belongs to ${stored} (${own?.appliedReason ?? 'no Applied reason'}) and the claim ${claim ? `is held by execution ${claim.execution}` : 'does not name it'}`,
    'warn',
  );
}

/**
 * A job's own success or cleanup, inside the API's window, needs no read of our status: its
 * finished_at is later than anything of its launch (the queued row, its own start report), and
 * the API orders it against anything newer. Failures (the stray rule), starts, execution-finished
 * reports (observed at Cloud Run's start, which can precede the start report's stamp) and late
 * reports are decided on our status.
 */
export function ownSuccessInWindow(plan: PlannedReport, now: Date): TimedReport | undefined {
  if (plan.outcome.kind === 'failed') return undefined;
  const timing = reportTiming(plan, now);
  return timing.kind === 'as-observed' ? { plan, observedTime: timing.observedAt } : undefined;
}

/**
 * The observed_time of a report, given our status as just read. Inside the API's window a report
 * keeps its own time, so the API orders it against newer reports (an older one is discarded, a
 * redelivered one answered unchanged), except over the in-flight row of its own launch (queued or
 * launched at the same generation, of this execution or attempt), which it concludes: that row's
 * time may be later than the report's own (the job's start is stamped after Cloud Run's), so it is
 * written strictly after it. Outside the window, late-report.ts decides from the same status.
 */
export function observedTime(
  plan: PlannedReport,
  own: OwnStatus | undefined,
  now: Date,
): TimedReport | Withheld {
  const timing = reportTiming(plan, now);
  if (timing.kind === 'needs-current-state') {
    const late = decideLateReport(plan, own, now);
    if (late.kind === 'drop')
      return withheld(
        'late-report-dropped',
        `a late report (observed ${plan.observedAt}, outside the API's observed_time window) is dropped: ${late.reason}`,
        'warn',
      );
    return {
      plan,
      observedTime: nextObservedTime(late.observedAt, own?.lastReportTime),
      note: {
        decision: 'late-report-re-derived',
        message: `Re-derived a late report (observed ${plan.observedAt}) as observed now: ${late.reason}`,
      },
    };
  }
  return {
    plan,
    observedTime: concludesInFlight(plan, own)
      ? nextObservedTime(timing.observedAt, own?.lastReportTime)
      : timing.observedAt,
  };
}

/** Our status is the in-flight row (queued or launched) of the launch this report is about. */
export function concludesInFlight(plan: PlannedReport, own: OwnStatus | undefined): boolean {
  if (!own || own.observedGeneration !== plan.generation) return false;
  if (!IN_FLIGHT_REASONS.has(own.appliedReason ?? '')) return false;
  const { execution, attempt } = reportedLaunch(plan);
  if (execution !== undefined && shortName(own.data.execution) === shortName(execution))
    return true;
  return attempt !== undefined && own.data.attempt === attempt;
}
