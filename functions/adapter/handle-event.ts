import { KeyedMutex } from '../../shared/concurrency/keyed-mutex';
import { AdapterError } from '../../shared/errors';
import { decodeIncomingEvent, type IncomingCloudEvent } from '../../shared/events/decode';
import type { ClusterEvent } from '../../shared/events/sentinel-event';
import { HyperFleetNotFoundError } from '../../shared/hyperfleet/errors';
import { logIfApiMisconfigured } from '../../shared/hyperfleet/misconfiguration';
import type { HyperFleetApi } from '../../shared/hyperfleet/port';
import { readOwnStatus } from '../../shared/hyperfleet/pullsecret-status';
import type { AdapterStatus, Cluster } from '../../shared/hyperfleet/schemas';
import { buildStatus } from '../../shared/hyperfleet/status-builder';
import type { Logger } from '../../shared/logging/logger';
import { clusterFacts, hasPullSecretInSpec, statusesByAdapter } from './cluster-facts';
import { decide, type Decision, type DecisionSettings } from './decide';
import type { JobLauncher, PullSecretReference } from './job-launcher';
import {
  evaluatePreconditions,
  type CompiledPrecondition,
  type PreconditionResult,
} from './preconditions';

/** What the handler needs; the entry file builds it once per instance. */
export interface AdapterDependencies {
  readonly hyperfleet: HyperFleetApi;
  readonly launcher: JobLauncher;
  readonly preconditions: readonly CompiledPrecondition[];
  readonly settings: DecisionSettings;
  readonly pullSecret: {
    readonly specPath: string;
    readonly additionalSpecPath: string;
    readonly defaultVersion?: string;
  };
  readonly logger: Logger;
  readonly now?: () => Date;
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
  const facts = cluster ? clusterFacts(cluster, statuses) : undefined;
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
  const decision = decide({
    event,
    cluster: facts,
    own: readOwnStatus(statuses),
    preconditions,
    settings: deps.settings,
    now: at,
  });
  const fields = {
    decision:
      decision.kind === 'skip'
        ? decision.reason
        : decision.kind === 'report'
          ? `report-${decision.outcome.kind}`
          : `launch-${decision.operation}`,
    generation: facts?.generation,
  };
  log.info(decision.message, fields);
  if (decision.kind === 'skip' || !cluster || !facts) return;
  if (decision.kind === 'report') {
    await report(deps, log, cluster.id, buildStatus(decision.outcome, facts.generation, at));
    return;
  }
  await launch(decision, cluster, deps, log, at);
}

async function launch(
  decision: Extract<Decision, { kind: 'launch' }>,
  cluster: Cluster,
  deps: AdapterDependencies,
  log: Logger,
  at: Date,
): Promise<void> {
  const reference: PullSecretReference =
    hasPullSecretInSpec(cluster, deps.pullSecret.specPath) || !deps.pullSecret.defaultVersion
      ? {
          source: 'cluster-spec',
          specPath: deps.pullSecret.specPath,
          additionalSpecPath: deps.pullSecret.additionalSpecPath,
        }
      : {
          source: 'secret-manager',
          version: deps.pullSecret.defaultVersion,
          additionalSpecPath: deps.pullSecret.additionalSpecPath,
        };
  let execution: string;
  try {
    ({ execution } = await deps.launcher.launch({
      clusterId: cluster.id,
      clusterName: cluster.name,
      generation: cluster.generation,
      gcpProjectId: decision.gcpProjectId,
      namespace: decision.namespace,
      operation: decision.operation,
      attempt: decision.attempt,
      pullSecret: reference,
    }));
  } catch (error) {
    if (!(error instanceof AdapterError) || error.kind !== 'permanent') throw error;
    log.error(`Could not launch the pull secret job: ${error.message}`, {
      reason: error.reason,
      decision: 'launch-failed',
    });
    await report(
      deps,
      log,
      cluster.id,
      buildStatus(
        {
          kind: 'launch-failed',
          operation: decision.operation,
          reason: error.reason,
          message: error.message,
        },
        cluster.generation,
        at,
      ),
    );
    return;
  }
  log.info(`Launched execution ${execution}`, {
    execution,
    operation: decision.operation,
    attempt: decision.attempt,
    namespace: decision.namespace,
    pull_secret_source: reference.source,
  });
  await report(
    deps,
    log,
    cluster.id,
    buildStatus(
      {
        kind: 'launched',
        operation: decision.operation,
        execution,
        launchedAt: at.toISOString(),
        attempt: decision.attempt,
      },
      cluster.generation,
      at,
    ),
  );
}

async function report(
  deps: AdapterDependencies,
  log: Logger,
  clusterId: string,
  body: ReturnType<typeof buildStatus>,
): Promise<void> {
  const outcome = await deps.hyperfleet.putStatus(clusterId, body);
  const available = body.conditions.find((c) => c.type === 'Available');
  log.info(
    `Status ${outcome}: Available=${available?.status ?? '?'} (${available?.reason ?? '?'})`,
    { status_write: outcome, reason: available?.reason, generation: body.observed_generation },
  );
}

async function listStatusesOrNone(api: HyperFleetApi, clusterId: string): Promise<AdapterStatus[]> {
  try {
    return await api.listStatuses(clusterId);
  } catch (error) {
    if (error instanceof HyperFleetNotFoundError) return [];
    throw error;
  }
}
