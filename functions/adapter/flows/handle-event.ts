import { KeyedMutex } from '../../../shared/concurrency/keyed-mutex';
import { AdapterError } from '../../../shared/errors';
import { decodeIncomingEvent, type IncomingCloudEvent } from '../../../shared/events/decode';
import type { ClusterEvent } from '../../../shared/events/sentinel-event';
import { HyperFleetNotFoundError } from '../../../shared/hyperfleet/errors';
import { logIfApiMisconfigured } from '../../../shared/hyperfleet/misconfiguration';
import type { HyperFleetApi } from '../../../shared/hyperfleet/port';
import { readOwnStatus } from '../../../shared/status/own-status';
import type { AdapterStatus } from '../../../shared/hyperfleet/schemas';
import { buildStatus } from '../../../shared/status/status-builder';
import type { Logger } from '../../../shared/logging/logger';
import { TRACE_ATTRIBUTES } from '../../../shared/tracing/attributes';
import { SpanKind, errorType, withSpan, type Span } from '../../../shared/tracing/spans';
import { contextFromTraceparent } from '../../../shared/tracing/traceparent';
import type { AdapterDependencies } from './dependencies';
import { clusterFacts } from '../decision/cluster-facts';
import { decide } from '../decision/decide';
import type { Decision } from '../decision/decision';
import { decisionAttributes, decisionName } from '../decision/decision-attributes';
import { resolveInFlight } from './in-flight-flow';
import { launchWithIntent } from './launch-flow';
import { preconditionContext } from '../decision/precondition-context';
import { reportStatus } from './report-status';
import { evaluatePreconditions, type PreconditionResult } from '../decision/preconditions';

/**
 * Builds the CloudEvent handler. It returns normally (the message is acknowledged) when the event
 * was handled or can never succeed; it throws only for transient failures, so Pub/Sub redelivers
 * with backoff and dead-letters after the configured attempts.
 */
export function createAdapterHandler(
  deps: AdapterDependencies,
): (incoming: IncomingCloudEvent) => Promise<void> {
  const locks = new KeyedMutex();
  const now = deps.now ?? (() => new Date());
  return async (incoming) => {
    const decoded = decodeIncomingEvent(incoming);
    if (decoded.kind === 'malformed') {
      deps.logger.warn(
        `Discarded a malformed event: ${decoded.problem}. It is acknowledged because it can never succeed.`,
        { event_id: incoming.id ?? '', event_type: incoming.type ?? '', decision: 'malformed' },
      );
      return;
    }
    if (decoded.kind === 'ignored') {
      deps.logger.debug(`Ignored event: ${decoded.reason}`, {
        event_id: incoming.id ?? '',
        event_type: decoded.type,
        decision: 'ignored',
      });
      return;
    }
    const event = decoded.event;
    const log = deps.logger.child({
      event_id: event.eventId,
      cluster_id: event.clusterId,
      ...(event.generation !== undefined ? { event_generation: event.generation } : {}),
    });
    // One trace per reconcile, continuing Sentinel's (a new one when the event carries none).
    const parent = contextFromTraceparent(decoded.trace.traceparent, decoded.trace.tracestate);
    const rootAttributes = {
      [TRACE_ATTRIBUTES.clusterId]: event.clusterId,
      ...(event.generation !== undefined
        ? { [TRACE_ATTRIBUTES.generation]: event.generation }
        : {}),
    };
    await withSpan(
      'adapter.handle',
      rootAttributes,
      (root) =>
        locks.run(event.clusterId, async () => {
          if (decoded.trace.ignored)
            log.debug(`Trace context not continued: ${decoded.trace.ignored}`);
          try {
            await handleClusterEvent(event, deps, log, now, root);
          } catch (error) {
            if (error instanceof AdapterError && error.kind === 'permanent') {
              // Retrying cannot help (e.g. the API refused our report, credentials are wrong); Sentinel re-sends anyway.
              root.setAttributes(failureAttributes('failed', error.reason));
              log.error(`Event handling failed permanently: ${error.message}`, {
                reason: error.reason,
                decision: 'failed',
              });
              return;
            }
            root.setAttributes(failureAttributes('retry', errorType(error)));
            if (logIfApiMisconfigured(error, log)) throw error;
            log.warn(
              `Event handling failed transiently and will be redelivered: ${error instanceof Error ? error.message : String(error)}`,
              { decision: 'retry' },
            );
            throw error;
          }
        }),
      { kind: SpanKind.CONSUMER, parent },
    );
  };
}

/** Replaces the decision's attributes when handling fails (the reason a code, never a message). */
const failureAttributes = (decision: string, reason: string) => ({
  [TRACE_ATTRIBUTES.decision]: decision,
  [TRACE_ATTRIBUTES.reason]: reason,
});

async function handleClusterEvent(
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
  const facts = cluster ? clusterFacts(cluster, statuses, deps.namespaceTemplate) : undefined;
  // The generation being reconciled is the cluster's (the event's may be older or absent).
  if (facts) root.setAttribute(TRACE_ATTRIBUTES.generation, facts.generation);
  const preconditions: PreconditionResult = await withSpan('adapter.preconditions', {}, async () =>
    cluster && !facts?.deleting
      ? evaluatePreconditions(
          deps.preconditions,
          preconditionContext(cluster, statuses, event, deps.pullSecret),
        )
      : { kind: 'met' as const },
  );
  const at = now();
  const decideNow = async (lost?: string) => {
    const decided = await withSpan('adapter.decide', {}, async () =>
      decide({
        event,
        cluster: facts,
        own: readOwnStatus(statuses),
        preconditions,
        settings: deps.settings,
        now: at,
        ...(lost !== undefined ? { lost } : {}),
      }),
    );
    root.setAttributes(decisionAttributes(decided));
    return decided;
  };
  let decision = await decideNow();
  logDecision(log, decision, facts?.generation);
  if (!cluster || !facts) return;
  if (decision.kind === 'resolve-launch' || decision.kind === 'check-execution') {
    const settled = await resolveInFlight(decision, cluster, deps, log, at);
    if (!settled) return;
    // Cloud Run says nothing runs for the in-flight record: decide again without it, once.
    decision = await decideNow(settled.lost);
    logDecision(log, decision, facts.generation);
  }
  switch (decision.kind) {
    case 'report':
      await reportStatus(
        deps.hyperfleet,
        log,
        cluster.id,
        buildStatus(decision.outcome, facts.generation, at),
      );
      return;
    case 'launch':
      await launchWithIntent(decision, cluster, deps, log, at);
      return;
    default:
      return;
  }
}

function logDecision(log: Logger, decision: Decision, generation: number | undefined): void {
  log.info(decision.message, { decision: decisionName(decision), generation });
}

async function listStatusesOrNone(api: HyperFleetApi, clusterId: string): Promise<AdapterStatus[]> {
  try {
    return await api.listStatuses(clusterId);
  } catch (error) {
    if (error instanceof HyperFleetNotFoundError) return [];
    throw error;
  }
}
