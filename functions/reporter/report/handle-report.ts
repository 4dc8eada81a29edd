import { AdapterError, TransientError } from '../../../shared/errors';
import type { IncomingCloudEvent } from '../../../shared/events/decode';
import { HyperFleetNotFoundError } from '../../../shared/hyperfleet/errors';
import { logIfApiMisconfigured } from '../../../shared/hyperfleet/misconfiguration';
import { readOwnStatus } from '../../../shared/status/own-status';
import { buildStatus } from '../../../shared/status/status-builder';
import { statusWriteFields } from '../../../shared/status/status-write-fields';
import type { JobResult, JobStarted } from '../../../shared/job-result';
import { TRACE_ATTRIBUTES } from '../../../shared/tracing/attributes';
import { SpanKind, withSpan, type Span, type SpanAttributes } from '../../../shared/tracing/spans';
import { contextFromTraceparent } from '../../../shared/tracing/traceparent';
import { decodeReport, type DecodedReport } from './decode-report';
import { planFinished, planResult, readClaim } from './plan-message';
import type { ReporterDependencies } from './reporter-dependencies';

export type { ReporterDependencies } from './reporter-dependencies';
import {
  failureStanding,
  observedTime,
  ownSuccessInWindow,
  recordStart,
  START_BEFORE_QUEUED,
  strayFailure,
  type TimedReport,
  type Withheld,
} from './status-rules';

/**
 * Builds the reporter's CloudEvent handler for both topics: job results and start reports, and
 * execution-finished entries. Idempotent and order-independent per execution (report-outcomes.ts,
 * shared/executions/execution-report.ts, and the rules against our status in status-rules.ts);
 * throws only for transient failures so Pub/Sub redelivers.
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
      decoded.kind === 'job-result'
        ? resultAttributes(decoded.result)
        : decoded.kind === 'job-started'
          ? startedAttributes(decoded.started)
          : {},
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
  const source = SOURCES[decoded.kind];
  try {
    const decision = await decideReport(decoded, deps, now(), span);
    if ('skip' in decision && decision.decision === START_BEFORE_QUEUED)
      throw new TransientError(`${decision.skip}; retrying the message`, 'StartBeforeQueued');
    if ('skip' in decision) {
      deps.logger[decision.severity](`Nothing to report: ${decision.skip}`, {
        source,
        decision: decision.decision,
      });
      decide(decision.decision);
      return;
    }
    await report(decision, source, deps, span);
  } catch (error) {
    if (error instanceof HyperFleetNotFoundError) {
      decide('cluster-gone');
      deps.logger.info('The cluster no longer exists; nothing to report', {
        source,
        decision: 'cluster-gone',
      });
      return;
    }
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

const SOURCES = {
  'job-result': 'job-result',
  'job-started': 'job-started',
  'execution-finished': 'execution-finished',
} as const;

/**
 * What to write for a message, and when it was observed, or why nothing is written: the plan from
 * the message (and Cloud Run, for an execution-finished event), then our status, read once, against
 * the rules of status-rules.ts (a start is recorded only over its queued row; a failure our status
 * does not vouch for needs the claim; the observed_time).
 */
async function decideReport(
  decoded: Extract<DecodedReport, { kind: keyof typeof SOURCES }>,
  deps: ReporterDependencies,
  now: Date,
  span: Span,
): Promise<TimedReport | Withheld> {
  const ownStatus = async (clusterId: string) =>
    readOwnStatus(await deps.hyperfleet.listStatuses(clusterId));
  if (decoded.kind === 'job-started') {
    const { started } = decoded;
    return recordStart(started, await ownStatus(started.cluster_id), deps.jobName, now);
  }
  const planned =
    decoded.kind === 'job-result'
      ? planResult(decoded.result, deps.jobName)
      : await planFinished(decoded.execution, deps, span);
  if ('skip' in planned)
    return {
      skip: planned.skip,
      decision: planned.decision ?? 'skip',
      severity: planned.severity ?? 'info',
    };
  const { plan, secretPath } = planned;
  const unread = decoded.kind === 'job-result' ? ownSuccessInWindow(plan, now) : undefined;
  if (unread) return unread;
  const own = await ownStatus(plan.clusterId);
  if (plan.outcome.kind === 'failed' && failureStanding(plan, own) === 'claim-decides') {
    const stray = strayFailure(plan, own, await readClaim(secretPath, deps));
    if (stray) return stray;
  }
  return observedTime(plan, own, now);
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

/** What a start report says about itself. */
function startedAttributes(started: JobStarted): SpanAttributes {
  return {
    [TRACE_ATTRIBUTES.clusterId]: started.cluster_id,
    [TRACE_ATTRIBUTES.generation]: started.generation,
    [TRACE_ATTRIBUTES.execution]: started.execution,
  };
}

async function report(
  timed: TimedReport,
  source: string,
  deps: ReporterDependencies,
  span: Span,
): Promise<void> {
  const { plan, observedTime, note } = timed;
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
  if (note) log.info(note.message, { decision: note.decision, observed_at: plan.observedAt });
  const body = buildStatus(plan.outcome, plan.generation, observedTime);
  const available = body.conditions.find((c) => c.type === 'Available');
  // The reason the status reports (the job's reason code, or the execution's classified failure).
  span.setAttributes({
    [TRACE_ATTRIBUTES.decision]: `report-${plan.outcome.kind}`,
    ...(available?.reason ? { [TRACE_ATTRIBUTES.reason]: available.reason } : {}),
  });
  const outcome = await deps.hyperfleet.putStatus(plan.clusterId, body);
  // `unchanged` (an equal observed_time) stored nothing, like `discarded` (an older one).
  const said =
    outcome === 'stored'
      ? `Reported ${plan.outcome.kind} (${available?.reason ?? ''}): status stored`
      : `Reported ${plan.outcome.kind} (${available?.reason ?? ''}): not stored (${outcome}: the API holds a report at least as new)`;
  log.info(said, {
    decision: `report-${plan.outcome.kind}`,
    status_write: outcome,
    stored: outcome === 'stored',
    ...statusWriteFields(body),
    execution: 'execution' in plan.outcome ? plan.outcome.execution : undefined,
  });
}
