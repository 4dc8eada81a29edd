import type { StatusOutcome } from '../../../shared/status/outcome';
import type { ExecutionSummary } from '../../../shared/executions/execution-reader';
import { planFromExecution } from '../../../shared/executions/execution-report';
import type { Decision, DecisionSettings } from './decision';
import type { LaunchedExecution } from '../cloud-run/job-launcher';

/** What to do once Cloud Run has been asked about an in-flight launch or execution. */
export type Resolution =
  | { readonly kind: 'adopt'; readonly found: LaunchedExecution; readonly message: string }
  | { readonly kind: 'wait'; readonly message: string; readonly overdue: boolean }
  | {
      readonly kind: 'report';
      readonly outcome: StatusOutcome;
      readonly generation: number;
      /** When the reported state was observed (the execution's start, as the reporter says). */
      readonly observedAt: string;
      readonly message: string;
    }
  | { readonly kind: 'relaunch'; readonly lost: string; readonly message: string };

/**
 * An intent without an execution, after searching the job's executions: a found execution is
 * adopted; none found is launched again once nobody can still be launching it (the intent was
 * abandoned by its instance, or is older than the launch grace). Pure.
 */
export function resolveIntent(
  decision: Extract<Decision, { kind: 'resolve-launch' }>,
  found: LaunchedExecution | undefined,
  settings: DecisionSettings,
  now: Date,
): Resolution {
  if (found)
    return {
      kind: 'adopt',
      found,
      message: `Adopting execution ${found.execution} of launch ${decision.launchId}`,
    };
  const age = now.getTime() - Date.parse(decision.since);
  if (!decision.abandoned && age < settings.launchGraceMs)
    return {
      kind: 'wait',
      overdue: false,
      message: `Launch ${decision.launchId} has no execution yet; another instance may still be starting it (${Math.round(age / 1000)} s ago)`,
    };
  return {
    kind: 'relaunch',
    lost: decision.launchId,
    message: `Launch ${decision.launchId} ${decision.abandoned ? 'was abandoned' : `is ${Math.round(age / 1000)} s old`} and started no execution; launching again`,
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
