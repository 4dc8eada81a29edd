import { AdapterError, TransientError } from '../../../shared/errors';
import type { ExecutionSummary } from '../../../shared/executions/execution-reader';
import { planFromExecution, secretPathOf } from '../../../shared/executions/execution-report';
import type { JobResult } from '../../../shared/job-result';
import type { Claim } from '../../../shared/pull-secret/claim';
import type { PlannedReport, SkippedReport } from '../../../shared/status/planned-report';
import { TRACE_ATTRIBUTES } from '../../../shared/tracing/attributes';
import type { Span } from '../../../shared/tracing/spans';
import type { ReporterDependencies } from './reporter-dependencies';
import { planFromJobResult, skipUnclaimedSuccess } from './report-outcomes';

// What a message says to report, before our status is read: the job result's plan, or the
// execution's as Cloud Run tells it (a success checked against the claim, since a duplicate also
// exits 0), with the secret whose claim can tell a stray failure; and that claim's read.

/** A plan, with the secret whose claim can tell a stray failure (when known). */
export interface Planned {
  readonly plan: PlannedReport;
  readonly secretPath?: string;
}

export function planResult(result: JobResult, jobName: string): Planned | SkippedReport {
  const plan = planFromJobResult(result, jobName);
  if ('skip' in plan) return plan;
  const secretPath = result.secret_manager?.secret_path;
  return { plan, ...(secretPath ? { secretPath } : {}) };
}

export async function planFinished(
  execution: string,
  deps: ReporterDependencies,
  span: Span,
): Promise<Planned | SkippedReport> {
  span.setAttribute(TRACE_ATTRIBUTES.execution, execution);
  const summary = await deps.executions.read(execution);
  if (!summary) return { skip: `execution ${execution} no longer exists` };
  // The entry says it finished; Cloud Run's API may not show it yet. Retried (redelivery,
  // bounded by EVENT_MAX_FAILURES / EVENT_MAX_AGE) instead of acknowledged with nothing reported.
  if (!summary.completionTime)
    throw new TransientError(
      `Execution ${execution} has not completed yet in Cloud Run's API; retrying the event`,
      'ExecutionNotCompleted',
    );
  const plan = await planExecutionReport(summary, deps);
  if ('skip' in plan) return plan;
  const secretPath = secretPathOf(summary);
  return { plan, ...(secretPath ? { secretPath } : {}) };
}

/**
 * The claim on the secret, for a failure our status does not vouch for; undefined when there is
 * no claim reader, no known secret, or the claim cannot be read for a permanent reason (the
 * failure is then withheld as a stray: overwriting the winner's report is the worse mistake, and
 * the adapter re-checks a launch that never reports).
 */
export async function readClaim(
  secretPath: string | undefined,
  deps: ReporterDependencies,
): Promise<Claim | undefined> {
  if (!deps.claims || !secretPath) return undefined;
  try {
    return await deps.claims.read(secretPath);
  } catch (error) {
    if (!(error instanceof AdapterError && error.kind === 'permanent')) throw error;
    deps.logger.warn(`Could not check the claim of a failure: ${error.message}`, {
      reason: error.reason,
      decision: 'claim-unchecked',
    });
    return undefined;
  }
}

/**
 * The report for a finished execution; a success is first checked against the claim, since a
 * duplicate also exits 0. If the claim cannot be read for a permanent reason (missing permission),
 * the report is written anyway: losing it would be worse, and the job result still decides.
 */
async function planExecutionReport(
  summary: ExecutionSummary,
  deps: ReporterDependencies,
): Promise<PlannedReport | SkippedReport> {
  const plan = planFromExecution(summary);
  const secretPath = secretPathOf(summary);
  if ('skip' in plan || plan.outcome.kind === 'failed' || !deps.claims || !secretPath) return plan;
  try {
    return skipUnclaimedSuccess(summary, await deps.claims.read(secretPath)) ?? plan;
  } catch (error) {
    if (!(error instanceof AdapterError && error.kind === 'permanent')) throw error;
    deps.logger.warn(`Could not check the claim, reporting anyway: ${error.message}`, {
      reason: error.reason,
      decision: 'claim-unchecked',
    });
    return plan;
  }
}
