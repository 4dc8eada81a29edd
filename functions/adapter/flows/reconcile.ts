import type { ClusterEvent } from '../../../shared/events/sentinel-event';
import { HyperFleetNotFoundError } from '../../../shared/hyperfleet/errors';
import type { HyperFleetApi } from '../../../shared/hyperfleet/port';
import type { AdapterStatus } from '../../../shared/hyperfleet/schemas';
import type { LogFields, Logger } from '../../../shared/logging/logger';
import { convergenceOf, type Convergence } from '../../../shared/status/convergence';
import { readOwnStatus } from '../../../shared/status/own-status';
import { TRACE_ATTRIBUTES } from '../../../shared/tracing/attributes';
import { withSpan, type Span } from '../../../shared/tracing/spans';
import { clusterFacts } from '../../../shared/hyperfleet/cluster-facts';
import { decide } from '../decision/decide';
import type { Decision } from '../decision/decision';
import { decisionAttributes, decisionName } from '../decision/decision-attributes';
import { preconditionContext } from '../decision/precondition-context';
import { evaluatePreconditions, type PreconditionResult } from '../decision/preconditions';
import type { AdapterDependencies } from './dependencies';
import { resolveInFlight } from './in-flight-flow';
import { launchThroughQueue } from './launch-flow';
import { StatusWriter } from './report-status';

/**
 * One event's reconcile, under the cluster's lock: read the cluster and its statuses, evaluate the
 * preconditions, decide, and act on the decision (report, launch, or ask Cloud Run about an
 * in-flight launch and decide once more without it when nothing runs).
 */
export async function reconcileCluster(
  event: ClusterEvent,
  deps: AdapterDependencies,
  log: Logger,
  now: () => Date,
  root: Span,
): Promise<void> {
  const [cluster, statuses] = await Promise.all([
    deps.hyperfleet.findCluster(event.clusterId),
    listStatusesOrNone(deps.hyperfleet, event.clusterId),
  ]);
  const facts = cluster ? clusterFacts(cluster, statuses, deps.namespaceLayout) : undefined;
  // The generation being reconciled is the cluster's (the event's may be older or absent).
  if (facts) root.setAttribute(TRACE_ATTRIBUTES.generation, facts.generation);
  // One context for the preconditions and the drift condition: converted to CEL once.
  const context =
    cluster && !facts?.deleting
      ? preconditionContext(cluster, statuses, event, deps.pullSecret)
      : undefined;
  const preconditions: PreconditionResult = await withSpan('adapter.preconditions', {}, async () =>
    context ? evaluatePreconditions(deps.preconditions, context) : { kind: 'met' as const },
  );
  const drift = context && deps.driftCondition?.evaluate(context);
  if (drift?.kind === 'error') log.warn(drift.message, { decision: 'drift-not-evaluated' });
  const at = now();
  const own = readOwnStatus(statuses);
  const decideNow = async (lost?: string) => {
    const decided = await withSpan('adapter.decide', {}, async () =>
      decide({
        event,
        cluster: facts,
        own,
        preconditions,
        ...(drift ? { drift } : {}),
        settings: deps.settings,
        now: at,
        ...(lost !== undefined ? { lost } : {}),
      }),
    );
    root.setAttributes(decisionAttributes(decided));
    return decided;
  };
  // How long the cluster has waited to converge, as the fleet report counts it (the fleet alerts
  // read these fields off the decision line, which every event of a waiting cluster writes).
  const waiting = cluster ? waitingFields(convergenceOf(cluster, statuses, at)) : {};
  let decision = await decideNow();
  logDecision(log, decision, facts?.generation, waiting);
  if (!cluster || !facts || decision.kind === 'skip') return;
  // Every write below takes its own moment, after our last stored report (report-status.ts).
  const writer = new StatusWriter(
    deps.hyperfleet,
    log,
    cluster.id,
    facts.generation,
    own?.lastReportTime,
    now,
  );
  if (decision.kind === 'check-task' || decision.kind === 'check-execution') {
    const settled = await resolveInFlight(decision, deps, log, writer, at);
    if (!settled) return;
    // Cloud Tasks or Cloud Run says nothing runs for the in-flight record: decide again without it.
    decision = await decideNow(settled.lost);
    logDecision(log, decision, facts.generation, waiting);
  }
  switch (decision.kind) {
    case 'report':
      await writer.write(decision.outcome);
      return;
    case 'launch':
      await launchThroughQueue(decision, cluster, deps, log, writer);
      return;
    default:
      return;
  }
}

function logDecision(
  log: Logger,
  decision: Decision,
  generation: number | undefined,
  waiting: LogFields,
): void {
  log.info(decision.message, { decision: decisionName(decision), generation, ...waiting });
}

/**
 * `waiting` (the state, one of a few values: a bounded metric label) and `waiting_seconds` (a
 * number, which a metric's filter compares with its threshold) for a cluster not converged; none
 * for a converged one.
 */
function waitingFields(convergence: Convergence): LogFields {
  if (convergence.state === 'converged' || convergence.waitingMs === undefined) return {};
  return { waiting: convergence.state, waiting_seconds: Math.floor(convergence.waitingMs / 1000) };
}

async function listStatusesOrNone(api: HyperFleetApi, clusterId: string): Promise<AdapterStatus[]> {
  try {
    return await api.listStatuses(clusterId);
  } catch (error) {
    if (error instanceof HyperFleetNotFoundError) return [];
    throw error;
  }
}
