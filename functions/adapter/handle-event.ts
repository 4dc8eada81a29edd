import { KeyedMutex } from '../../shared/concurrency/keyed-mutex';
import { AdapterError } from '../../shared/errors';
import { decodeIncomingEvent, type IncomingCloudEvent } from '../../shared/events/decode';
import type { ClusterEvent } from '../../shared/events/sentinel-event';
import { HyperFleetNotFoundError } from '../../shared/hyperfleet/errors';
import { logIfApiMisconfigured } from '../../shared/hyperfleet/misconfiguration';
import type { HyperFleetApi } from '../../shared/hyperfleet/port';
import { readOwnStatus } from '../../shared/hyperfleet/pullsecret-status';
import type { AdapterStatus } from '../../shared/hyperfleet/schemas';
import { buildStatus } from '../../shared/hyperfleet/status-builder';
import type { Logger } from '../../shared/logging/logger';
import type { RetryPolicy } from '../../shared/retry/backoff';
import { clusterFacts, hasPullSecretInSpec, statusesByAdapter } from './cluster-facts';
import { decide, type Decision, type DecisionSettings } from './decide';
import type { ExecutionLookup } from './execution-lookup';
import { resolveInFlight } from './in-flight-flow';
import type { JobLauncher } from './job-launcher';
import { launchWithIntent } from './launch-flow';
import type { PullSecretSettings } from './pull-secret-reference';
import { reportStatus } from './report-status';
import {
  evaluatePreconditions,
  type CompiledPrecondition,
  type PreconditionResult,
} from './preconditions';

/** What the handler needs; the entry file builds it once per instance. */
export interface AdapterDependencies {
  readonly hyperfleet: HyperFleetApi;
  readonly launcher: JobLauncher;
  /** Cloud Run reads, off the happy path: ambiguous launches and long-silent executions. */
  readonly lookup: ExecutionLookup;
  /** In-process attempts of RunJob, each failure followed by a search for the execution. */
  readonly launchRetry: RetryPolicy;
  readonly preconditions: readonly CompiledPrecondition[];
  readonly settings: DecisionSettings;
  readonly pullSecret: PullSecretSettings;
  /** MANAGEMENT_NAMESPACE_TEMPLATE; `clusters-{id}` when absent. */
  readonly namespaceTemplate?: string;
  readonly logger: Logger;
  readonly now?: () => Date;
  /** Injectable for tests; a random UUID per launch otherwise. */
  readonly newLaunchId?: () => string;
}

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
    await locks.run(event.clusterId, async () => {
      try {
        await handleClusterEvent(event, deps, log, now);
      } catch (error) {
        if (error instanceof AdapterError && error.kind === 'permanent') {
          // Retrying cannot help (e.g. the API refused our report, credentials are wrong); Sentinel re-sends anyway.
          log.error(`Event handling failed permanently: ${error.message}`, {
            reason: error.reason,
            decision: 'failed',
          });
          return;
        }
        if (logIfApiMisconfigured(error, log)) throw error;
        log.warn(
          `Event handling failed transiently and will be redelivered: ${error instanceof Error ? error.message : String(error)}`,
          { decision: 'retry' },
        );
        throw error;
      }
    });
  };
}

async function handleClusterEvent(
  event: ClusterEvent,
  deps: AdapterDependencies,
  log: Logger,
  now: () => Date,
): Promise<void> {
  const [cluster, statuses] = await Promise.all([
    deps.hyperfleet.findCluster(event.clusterId),
    listStatusesOrNone(deps.hyperfleet, event.clusterId),
  ]);
  const facts = cluster ? clusterFacts(cluster, statuses, deps.namespaceTemplate) : undefined;
  const preconditions: PreconditionResult =
    cluster && !facts?.deleting
      ? evaluatePreconditions(deps.preconditions, {
          cluster,
          statuses: statusesByAdapter(statuses),
          event: {
            id: event.eventId,
            type: event.type,
            source: event.source,
            clusterId: event.clusterId,
            generation: event.generation ?? null,
          },
          pullSecret: {
            inSpec: hasPullSecretInSpec(cluster, deps.pullSecret.specPath),
            defaultConfigured: deps.pullSecret.defaultVersion !== undefined,
          },
        })
      : { kind: 'met' };
  const at = now();
  const decideNow = (lost?: string) =>
    decide({
      event,
      cluster: facts,
      own: readOwnStatus(statuses),
      preconditions,
      settings: deps.settings,
      now: at,
      ...(lost !== undefined ? { lost } : {}),
    });
  let decision = decideNow();
  logDecision(log, decision, facts?.generation);
  if (!cluster || !facts) return;
  if (decision.kind === 'resolve-launch' || decision.kind === 'check-execution') {
    const settled = await resolveInFlight(decision, cluster, deps, log, at);
    if (!settled) return;
    // Cloud Run says nothing runs for the in-flight record: decide again without it, once.
    decision = decideNow(settled.lost);
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
  const kind =
    decision.kind === 'skip'
      ? decision.reason
      : decision.kind === 'report'
        ? `report-${decision.outcome.kind}`
        : decision.kind === 'launch'
          ? `launch-${decision.operation}`
          : decision.kind;
  log.info(decision.message, { decision: kind, generation });
}

async function listStatusesOrNone(api: HyperFleetApi, clusterId: string): Promise<AdapterStatus[]> {
  try {
    return await api.listStatuses(clusterId);
  } catch (error) {
    if (error instanceof HyperFleetNotFoundError) return [];
    throw error;
  }
}
