import type { StatusOutcome } from '../../../shared/status/outcome';
import type { ExecutionSummary } from '../../../shared/executions/execution-reader';
import { planFromExecution } from '../../../shared/executions/execution-report';
import { GrpcStatus as status, grpcStatusName } from '../../../shared/gcp/grpc-status';
import type { QueuedTask, TaskAttempt } from '../launch-queue/launch-queue';
import type { Decision, DecisionSettings } from './decision';

/** What to do once Cloud Tasks or Cloud Run has been asked about an in-flight launch or execution. */
export type Resolution =
  | { readonly kind: 'wait'; readonly message: string; readonly overdue: boolean }
  | {
      readonly kind: 'report';
      readonly outcome: StatusOutcome;
      readonly generation: number;
      /** When the reported state was observed (the execution's start, as the reporter says). */
      readonly observedAt: string;
      readonly message: string;
    }
  | {
      /** Cloud Run refused the task's RunJob for good: stop the queue's retries and report it. */
      readonly kind: 'refused';
      readonly attempt: TaskAttempt;
      readonly message: string;
    }
  | { readonly kind: 'relaunch'; readonly lost: string; readonly message: string };

/**
 * RunJob answers that no retry can fix (the launcher lacks a right, the job is missing, the
 * overrides are refused): Cloud Tasks would retry them until max_attempts all the same, since it
 * retries every non-2xx answer (https://cloud.google.com/tasks/docs/creating-http-target-tasks,
 * "Handler response": a task is retried unless it answers 2xx). Quota (429) and 5xx are not here.
 */
const REFUSALS: ReadonlySet<number> = new Set([
  status.INVALID_ARGUMENT,
  status.NOT_FOUND,
  status.PERMISSION_DENIED,
  status.UNAUTHENTICATED,
  status.FAILED_PRECONDITION,
]);

/**
 * A queued launch, after GetTask. Still in the queue with a refusal as its last answer: refused.
 * Still in the queue otherwise (not dispatched yet: rate, backlog, a paused queue; or retrying a
 * 429/5xx): wait, the queue does the rest. Gone: Cloud Tasks deletes a task once RunJob answered
 * 2xx, so its execution should report its start; after LAUNCH_START_GRACE without that report the
 * launch is presumed lost (the queue gave up, or the report was lost) and launched again. Pure.
 */
export function resolveTask(
  decision: Extract<Decision, { kind: 'check-task' }>,
  task: QueuedTask | undefined,
  settings: DecisionSettings,
  now: Date,
): Resolution {
  const age = now.getTime() - Date.parse(decision.queuedAt);
  const seconds = Math.round(age / 1000);
  if (task) {
    const last = task.lastAttempt;
    if (last && REFUSALS.has(last.code))
      return {
        kind: 'refused',
        attempt: last,
        message: `Launch task ${decision.task} was refused by Cloud Run (${grpcStatusName(last.code) ?? last.code}: ${last.message}); not retrying it`,
      };
    const why = last
      ? `${task.dispatchCount} dispatch(es), the last answered ${grpcStatusName(last.code) ?? last.code}`
      : 'not dispatched yet (launch rate, backlog, or a paused queue)';
    return {
      kind: 'wait',
      overdue: age >= settings.executionTimeoutMs,
      message: `Launch task ${decision.task} queued ${seconds} s ago is still in the queue: ${why}`,
    };
  }
  if (age < settings.launchStartGraceMs)
    return {
      kind: 'wait',
      overdue: false,
      message: `Launch task ${decision.task} was dispatched; waiting for its execution to report its start (${seconds} s)`,
    };
  return {
    kind: 'relaunch',
    lost: decision.task,
    message: `Launch task ${decision.task} left the queue ${seconds} s ago and no execution reported its start; launching again`,
  };
}

/**
 * A long-silent execution, as GetExecution shows it. Still running: wait (Cloud Run enforces the
 * task timeout and retries, so relaunching beside it would only race it). Finished but never
 * reported (finished event lost, reporter down): report it exactly as the reporter would, from
 * the same reading of the execution; a failure then takes the usual backoff and relaunch with
 * attempt+1, so a success costs no second execution and a failure no premature one. Gone
 * (deleted, or never existed): relaunch. Pure.
 */
export function resolveExecution(
  decision: Extract<Decision, { kind: 'check-execution' }>,
  summary: ExecutionSummary | undefined,
  settings: DecisionSettings,
  now: Date,
): Resolution {
  if (!summary)
    return {
      kind: 'relaunch',
      lost: decision.execution,
      message: `Execution ${decision.execution} no longer exists in Cloud Run; launching again`,
    };
  const age = now.getTime() - Date.parse(decision.launchedAt);
  if (!summary.completionTime)
    return {
      kind: 'wait',
      overdue: age >= settings.executionTimeoutMs,
      message: `Execution ${decision.execution} is still running after ${Math.round(age / 1000)} s (Cloud Run says so)`,
    };
  const plan = planFromExecution(summary);
  if ('skip' in plan)
    return {
      kind: 'relaunch',
      lost: decision.execution,
      message: `Execution ${decision.execution} cannot be reported (${plan.skip}); launching again`,
    };
  return {
    kind: 'report',
    outcome: plan.outcome,
    generation: plan.generation,
    observedAt: plan.observedAt,
    message: `Execution ${decision.execution} finished but its result never arrived; reporting it from Cloud Run`,
  };
}
