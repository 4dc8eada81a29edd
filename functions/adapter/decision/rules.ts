// The rules of `decide`, each a small pure function of the situation: a decision when it applies,
// undefined otherwise. Their order is in decide.ts.
import type { Decision } from './decision';
import { inFlightCheck } from './in-flight-check';
import { resyncDueAfterMs } from './resync-spread';
import { IN_FLIGHT_REASONS } from '../../../shared/status/own-status';
import { reportOnce, skip, type Situation } from './situation';

const LABEL_SAFE = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** An event older than the cluster: a newer event follows. */
export function staleEvent({ input, cluster }: Situation): Decision | undefined {
  const { generation } = input.event;
  if (generation === undefined || generation >= cluster.generation) return undefined;
  return skip(
    'stale-event',
    `Event generation ${generation} is older than the cluster's ${cluster.generation}; a newer event will follow`,
  );
}

/** A cluster id or name that cannot become a label value or part of resource names. */
export function invalidIdentity(situation: Situation): Decision | undefined {
  const { cluster, operation } = situation;
  const problem = !LABEL_SAFE.test(cluster.clusterId)
    ? `Cluster id ${JSON.stringify(cluster.clusterId.slice(0, 80))} cannot be used: it must be a DNS label (lowercase letters, digits, "-", at most 63) because it becomes a label value and part of resource names`
    : cluster.clusterName !== '' && !LABEL_SAFE.test(cluster.clusterName)
      ? `Cluster name ${JSON.stringify(cluster.clusterName.slice(0, 80))} cannot be used as a label value (lowercase letters, digits, "-", at most 63)`
      : undefined;
  if (!problem) return undefined;
  return reportOnce(situation, {
    kind: 'launch-failed',
    operation,
    reason: 'InvalidClusterIdentity',
    message: problem,
  });
}

/** A deletion whose cleanup is already confirmed at this generation. */
export function alreadyFinalized({
  cluster,
  own,
  sameGeneration,
}: Situation): Decision | undefined {
  if (!cluster.deleting || !sameGeneration || own?.finalized !== 'True') return undefined;
  return skip(
    'finalized',
    `Pull secret cleanup already confirmed at generation ${cluster.generation}`,
  );
}

/** A deletion of a cluster without a GCP project id: the job never ran, nothing to clean up. */
export function nothingToCleanUp({ cluster, input }: Situation): Decision | undefined {
  if (!cluster.deleting || cluster.gcpProjectId) return undefined;
  return {
    kind: 'report',
    outcome: {
      kind: 'finalized',
      execution: 'none',
      message:
        'Nothing to clean up: the cluster never had a GCP project id, so no pull secret was provisioned',
      timing: { completedAt: input.now.toISOString() },
    },
    message: 'Deleting a cluster that was never provisioned',
  };
}

/**
 * Drift reported on a provisioned cluster that our last run may already have answered: the report's
 * drift condition turned False before our last report (so it may predate our write, the consumer
 * not having checked again yet, or our repair did not help). Such a report is repaired at most once
 * per DRIFT_REPAIR_BACKOFF; a drift that turned False after our last report (the Secret went
 * missing after we wrote it) is repaired at once.
 */
export function driftRepairBackoff(situation: Situation): Decision | undefined {
  const { driftReported, lastReportAge, input, cluster, own } = situation;
  const window = input.settings.driftRepairBackoffMs ?? 0;
  if (!driftReported || lastReportAge >= window) return undefined;
  const since = input.drift?.kind === 'reported' ? input.drift.since : undefined;
  if (since && own?.lastReportTime && Date.parse(since) > Date.parse(own.lastReportTime))
    return undefined;
  return skip(
    'drift-repair-backoff',
    `Drift reported for generation ${cluster.generation} since before our last run ended ${Math.round(lastReportAge / 1000)} s ago; repaired in ${Math.round((window - lastReportAge) / 1000)} s if it is still reported`,
  );
}

/**
 * Provisioned at this generation and verified within the resync interval (plus the cluster's
 * offset in the spread window), and no drift reported.
 */
export function upToDate(situation: Situation): Decision | undefined {
  const { cluster, own, sameGeneration, lastReportAge, input, driftReported } = situation;
  if (cluster.deleting || !sameGeneration || own?.available !== 'True' || driftReported)
    return undefined;
  // A refused background run (Health=False) waits for the permanent-failure interval, a lost one
  // (still marked in flight) is launched again, a placement move at once.
  if (own.health === 'False' || IN_FLIGHT_REASONS.has(own.appliedReason ?? '')) return undefined;
  if (situation.placementMoved) return undefined;
  const { resyncIntervalMs, resyncSpreadMs } = input.settings;
  if (lastReportAge >= resyncDueAfterMs(cluster.clusterId, resyncIntervalMs, resyncSpreadMs ?? 0))
    return undefined;
  return skip(
    'up-to-date',
    `Pull secret provisioned at generation ${cluster.generation}, verified ${Math.round(lastReportAge / 1000)} s ago`,
  );
}

/**
 * A converged cluster whose background run (resync, drift repair) cannot launch now: a precondition
 * is briefly false, placement's data is unusable. The converged status stays as it is; the run
 * goes ahead at the first event that allows it. A precondition flapping at resync must never
 * unconverge a cluster whose pull secret is in place.
 */
export function convergedAwaitingLaunch(situation: Situation): Decision | undefined {
  const { kept, launchable, input, cluster } = situation;
  if (!kept || launchable) return undefined;
  const why =
    input.preconditions.kind === 'not-met'
      ? `precondition ${input.preconditions.name} is not met`
      : input.preconditions.kind === 'error'
        ? 'the preconditions could not be evaluated'
        : !cluster.namespace.ok
          ? cluster.namespace.problem
          : !cluster.managementCluster.ok
            ? cluster.managementCluster.problem
            : 'the cluster spec has no GCP project id';
  return skip(
    'background-deferred',
    `Provisioned at generation ${cluster.generation}; its background run waits because ${why}`,
  );
}

/** A launch or execution of this generation and operation under way (see in-flight-check.ts). */
export function inFlight({
  own,
  operation,
  sameGeneration,
  input,
}: Situation): Decision | undefined {
  return sameGeneration && own ? inFlightCheck(own, operation, input) : undefined;
}

/** A precondition evaluated false (apply only: a deletion needs none). */
export function preconditionsNotMet(situation: Situation): Decision | undefined {
  const { preconditions } = situation.input;
  if (situation.cluster.deleting || preconditions.kind !== 'not-met') return undefined;
  return reportOnce(situation, {
    kind: 'not-met',
    precondition: preconditions.name,
    message: preconditions.message,
  });
}

/** A precondition that could not be evaluated (apply only). */
export function preconditionsNotEvaluated(situation: Situation): Decision | undefined {
  const { preconditions } = situation.input;
  if (situation.cluster.deleting || preconditions.kind !== 'error') return undefined;
  return reportOnce(situation, { kind: 'precondition-error', message: preconditions.message });
}

/** The management namespace could not be derived (placement's data or the template). */
export function invalidNamespace(situation: Situation): Decision | undefined {
  const { namespace } = situation.cluster;
  if (namespace.ok) return undefined;
  return reportOnce(situation, {
    kind: 'launch-failed',
    operation: situation.operation,
    reason: 'InvalidManagementNamespace',
    message: namespace.problem,
  });
}

/** Placement named a management cluster that cannot be used. */
export function invalidManagementCluster(situation: Situation): Decision | undefined {
  const { managementCluster } = situation.cluster;
  if (managementCluster.ok) return undefined;
  return reportOnce(situation, {
    kind: 'launch-failed',
    operation: situation.operation,
    reason: 'InvalidManagementCluster',
    message: managementCluster.problem,
  });
}

/** The cluster spec names no GCP project, so there is nowhere to provision. */
export function noGcpProject(situation: Situation): Decision | undefined {
  if (situation.cluster.gcpProjectId) return undefined;
  return reportOnce(situation, {
    kind: 'launch-failed',
    operation: situation.operation,
    reason: 'InvalidClusterSpec',
    message: 'The cluster spec has no GCP project id',
  });
}

/** The last attempt of this generation and operation failed; undefined when it did not. */
function lastFailure({ own, sameGeneration, operation }: Situation) {
  if (!sameGeneration || own?.health !== 'False') return undefined;
  const { failure_kind, operation: failedOperation } = own.data;
  return failure_kind && failedOperation === operation ? own : undefined;
}

/** A permanent failure at this generation is retried only rarely (rights may have been fixed). */
export function failedPermanently(situation: Situation): Decision | undefined {
  const failed = lastFailure(situation);
  const { permanentFailureRetryMs } = situation.input.settings;
  if (failed?.data.failure_kind !== 'permanent') return undefined;
  if (situation.lastReportAge >= permanentFailureRetryMs) return undefined;
  return skip(
    'failed-permanently',
    `Generation ${situation.cluster.generation} failed permanently (${failed.availableReason ?? 'unknown reason'}); it is retried only on a new generation or after ${Math.round(permanentFailureRetryMs / 60_000)} min`,
  );
}

/** A transient failure is retried after an exponential backoff. */
export function backingOff(situation: Situation): Decision | undefined {
  const failed = lastFailure(situation);
  if (failed?.data.failure_kind !== 'transient') return undefined;
  const { retryBackoffBaseMs, retryBackoffMaxMs } = situation.input.settings;
  const attempt = failed.data.attempt ?? 1;
  const wait = Math.min(retryBackoffMaxMs, retryBackoffBaseMs * 2 ** Math.max(0, attempt - 1));
  if (situation.lastReportAge >= wait) return undefined;
  return skip(
    'backing-off',
    `Attempt ${attempt} failed (${failed.availableReason ?? 'unknown reason'}); next attempt in ${Math.round((wait - situation.lastReportAge) / 1000)} s`,
  );
}
