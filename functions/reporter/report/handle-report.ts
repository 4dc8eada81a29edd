import { AdapterError, TransientError } from '../../../shared/errors';
import type { IncomingCloudEvent } from '../../../shared/events/decode';
import { HyperFleetNotFoundError } from '../../../shared/hyperfleet/errors';
import { logIfApiMisconfigured } from '../../../shared/hyperfleet/misconfiguration';
import type { HyperFleetApi } from '../../../shared/hyperfleet/port';
import { readOwnStatus } from '../../../shared/status/own-status';
import { buildStatus } from '../../../shared/status/status-builder';
import type { JobResult } from '../../../shared/job-result';
import type { Logger } from '../../../shared/logging/logger';
import { TRACE_ATTRIBUTES } from '../../../shared/tracing/attributes';
import { SpanKind, withSpan, type Span, type SpanAttributes } from '../../../shared/tracing/spans';
import { contextFromTraceparent } from '../../../shared/tracing/traceparent';
import { decodeReport, type DecodedReport } from './decode-report';
import type { ClaimReader } from '../claim/claim-reader';
import type {
  ExecutionReader,
  ExecutionSummary,
} from '../../../shared/executions/execution-reader';
import { decideLateReport, reportTiming } from './late-report';
import { planFromExecution, secretPathOf } from '../../../shared/executions/execution-report';
import type { PlannedReport, SkippedReport } from '../../../shared/status/planned-report';
import { planFromJobResult, skipUnclaimedSuccess } from './report-outcomes';

export interface ReporterDependencies {
  readonly hyperfleet: HyperFleetApi;
  readonly executions: ExecutionReader;
  /** Tells duplicates from claim holders on execution-finished events; absent: no check. */
  readonly claims?: ClaimReader;
  /** projects/P/locations/L/jobs/J: only this job's executions are reported. */
  readonly jobName: string;
  readonly logger: Logger;
  readonly now?: () => Date;
}

/**
 * Builds the reporter's CloudEvent handler for both topics. Idempotent and order-independent per
 * execution (see report-outcomes.ts and shared/executions/execution-report.ts); throws only for
 * transient failures so Pub/Sub redelivers.
 * Each message of ours is handled inside the CONSUMER span `reporter.handle`: the child of the
 * job's publish span (message attribute `traceparent`), or the root of a new trace (an
 * execution-finished event, a result published without one), so the status write and its
 * HyperFleet request belong to the reconcile's trace. Other jobs' messages get no span.
 */
export function createReporterHandler(
  deps: ReporterDependencies,
): (incoming: IncomingCloudEvent) => Promise<void> {
  const now = deps.now ?? (() => new Date());
  return async (incoming) => {
    const decoded = decodeReport(incoming, deps.jobName);
    if (decoded.kind === 'ignored') {
      deps.logger.debug(`Ignored message: ${decoded.reason}`, {
        message_id: incoming.id ?? '',
        decision: 'ignored',
      });
      return;
    }
    await withSpan(
      'reporter.handle',
      decoded.kind === 'job-result' ? resultAttributes(decoded.result) : {},
      (span) => handle(decoded, incoming.id ?? '', deps, now, span),
      {
        kind: SpanKind.CONSUMER,
        parent: contextFromTraceparent(decoded.trace?.traceparent, decoded.trace?.tracestate),
      },
    );
  };
}

async function handle(
  decoded: Exclude<DecodedReport, { kind: 'ignored' }>,
  messageId: string,
  deps: ReporterDependencies,
  now: () => Date,
  span: Span,
): Promise<void> {
  const decide = (decision: string) => span.setAttribute(TRACE_ATTRIBUTES.decision, decision);
  if (decoded.kind === 'unreadable-finished-entry') {
    // Loud, with its own decision (counted by a log-based metric that alerts): Cloud Run may have
    // changed the entry. Acknowledged, since no retry reads it better; the adapter's GetExecution
    // of a silent execution (EXECUTION_CHECK_AFTER) still reports that execution.
    deps.logger.error(
      `Could not read an execution-finished entry: ${decoded.problem}. The execution it announces is reported by the adapter's check of silent executions instead; see docs/operations.md, "Troubleshooting".`,
      { message_id: messageId, decision: 'finished-entry-unreadable' },
    );
    decide('finished-entry-unreadable');
    return;
  }
  if (decoded.kind === 'malformed') {
    deps.logger.warn(
      `Discarded a malformed report message: ${decoded.problem}. It is acknowledged because it can never succeed.`,
      { message_id: messageId, decision: 'malformed' },
    );
    decide('malformed');
    return;
  }
  try {
    let plan: PlannedReport | SkippedReport;
    if (decoded.kind === 'job-result') plan = planFromJobResult(decoded.result, deps.jobName);
    else {
      span.setAttribute(TRACE_ATTRIBUTES.execution, decoded.execution);
      const summary = await deps.executions.read(decoded.execution);
      // The entry says it finished; Cloud Run's API may not show it yet. Retried (redelivery,
      // bounded by EVENT_MAX_FAILURES / EVENT_MAX_AGE) instead of acknowledged with nothing reported.
      if (summary && !summary.completionTime)
        throw new TransientError(
          `Execution ${decoded.execution} has not completed yet in Cloud Run's API; retrying the event`,
          'ExecutionNotCompleted',
        );
      plan = summary
        ? await planExecutionReport(summary, deps)
        : { skip: `execution ${decoded.execution} no longer exists` };
    }
    const source = decoded.kind === 'job-result' ? 'job-result' : 'execution-finished';
    if ('skip' in plan) {
      deps.logger.info(`Nothing to report: ${plan.skip}`, {
        source,
        decision: plan.decision ?? 'skip',
      });
      decide(plan.decision ?? 'skip');
      return;
    }
    await report(plan, source, deps, now(), span);
  } catch (error) {
    if (error instanceof AdapterError && error.kind === 'permanent') {
      deps.logger.error(`Reporting failed permanently: ${error.message}`, {
        reason: error.reason,
        decision: 'failed',
      });
      decide('failed');
      return;
    }
    logIfApiMisconfigured(error, deps.logger);
    throw error;
  }
}

/** What a job result says about itself, known before anything is read. */
function resultAttributes(result: JobResult): SpanAttributes {
  return {
    [TRACE_ATTRIBUTES.clusterId]: result.cluster_id,
    ...(result.generation !== undefined
      ? { [TRACE_ATTRIBUTES.generation]: result.generation }
      : {}),
    [TRACE_ATTRIBUTES.outcome]: result.outcome,
    [TRACE_ATTRIBUTES.reason]: result.reason,
    ...(result.execution ? { [TRACE_ATTRIBUTES.execution]: result.execution } : {}),
  };
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

async function report(
  plan: PlannedReport,
  source: string,
  deps: ReporterDependencies,
  now: Date,
  span: Span,
): Promise<void> {
  const log = deps.logger.child({
    cluster_id: plan.clusterId,
    generation: plan.generation,
    source,
  });
  span.setAttributes({
    [TRACE_ATTRIBUTES.clusterId]: plan.clusterId,
    [TRACE_ATTRIBUTES.generation]: plan.generation,
    [TRACE_ATTRIBUTES.outcome]: plan.outcome.kind,
  });
  try {
    const observed = await observedTimeFor(plan, deps, now, log);
    if (!observed) {
      span.setAttribute(TRACE_ATTRIBUTES.decision, 'late-report-dropped');
      return;
    }
    const body = buildStatus(plan.outcome, plan.generation, observed);
    const available = body.conditions.find((c) => c.type === 'Available');
    // The reason the status reports (the job's reason code, or the execution's classified failure).
    span.setAttributes({
      [TRACE_ATTRIBUTES.decision]: `report-${plan.outcome.kind}`,
      ...(available?.reason ? { [TRACE_ATTRIBUTES.reason]: available.reason } : {}),
    });
    const outcome = await deps.hyperfleet.putStatus(plan.clusterId, body);
    log.info(`Reported ${plan.outcome.kind} (${available?.reason ?? ''}): status ${outcome}`, {
      decision: `report-${plan.outcome.kind}`,
      status_write: outcome,
      reason: available?.reason,
      execution: 'execution' in plan.outcome ? plan.outcome.execution : undefined,
    });
  } catch (error) {
    if (error instanceof HyperFleetNotFoundError) {
      span.setAttribute(TRACE_ATTRIBUTES.decision, 'cluster-gone');
      log.info('The cluster no longer exists; nothing to report', { decision: 'cluster-gone' });
      return;
    }
    throw error;
  }
}

/**
 * The observed_time to report with, or undefined when the report is dropped. Only a report
 * outside the API's observed_time window costs a status read (see late-report.ts).
 */
async function observedTimeFor(
  plan: PlannedReport,
  deps: ReporterDependencies,
  now: Date,
  log: Logger,
): Promise<Date | undefined> {
  const timing = reportTiming(plan, now);
  if (timing.kind === 'as-observed') return timing.observedAt;
  const own = readOwnStatus(await deps.hyperfleet.listStatuses(plan.clusterId));
  const late = decideLateReport(plan, own, now);
  if (late.kind === 'drop') {
    log.warn(
      `Dropped a late report (observed ${plan.observedAt}, outside the API's observed_time window): ${late.reason}`,
      { decision: 'late-report-dropped', observed_at: plan.observedAt },
    );
    return undefined;
  }
  log.info(
    `Re-derived a late report (observed ${plan.observedAt}) as observed now: ${late.reason}`,
    { decision: 'late-report-re-derived', observed_at: plan.observedAt },
  );
  return late.observedAt;
}
