import type { Operation, StatusOutcome } from '../../../shared/status/outcome';
import type { ClusterFacts, Decision, DecisionInput, LaunchReason, SkipReason } from './decision';
import { inFlightCheck } from './in-flight-check';

const LABEL_SAFE = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const skip = (reason: SkipReason, message: string): Decision => ({ kind: 'skip', reason, message });

/**
 * Decides what one event asks for. Pure: no I/O, no clock but `now`. The order matters: a
 * converged or running cluster is left alone even when another adapter flaps.
 */
export function decide(input: DecisionInput): Decision {
  const { event, cluster, own, settings, now } = input;
  if (!cluster)
    return skip('cluster-gone', `Cluster ${event.clusterId} no longer exists; nothing to report`);
  if (event.generation !== undefined && event.generation < cluster.generation) {
    return skip(
      'stale-event',
      `Event generation ${event.generation} is older than the cluster's ${cluster.generation}; a newer event will follow`,
    );
  }
  const sameGeneration = own?.observedGeneration === cluster.generation;
  const since = (iso: string | undefined) =>
    iso ? now.getTime() - Date.parse(iso) : Number.POSITIVE_INFINITY;
  const lastReportAge = since(own?.lastReportTime);
  const operation: Operation = cluster.deleting ? 'delete' : 'apply';

  const invalidIdentity = identityProblem(cluster);
  if (invalidIdentity)
    return reportOnce(input, {
      kind: 'launch-failed',
      operation,
      reason: 'InvalidClusterIdentity',
      message: invalidIdentity,
    });

  if (cluster.deleting) {
    if (sameGeneration && own?.finalized === 'True')
      return skip(
        'finalized',
        `Pull secret cleanup already confirmed at generation ${cluster.generation}`,
      );
    if (!cluster.gcpProjectId) {
      // The job is never launched without a project id, so nothing can have been provisioned.
      return {
        kind: 'report',
        outcome: {
          kind: 'finalized',
          execution: 'none',
          message:
            'Nothing to clean up: the cluster never had a GCP project id, so no pull secret was provisioned',
          timing: { completedAt: now.toISOString() },
        },
        message: 'Deleting a cluster that was never provisioned',
      };
    }
  } else if (
    sameGeneration &&
    own?.available === 'True' &&
    lastReportAge < settings.resyncIntervalMs
  ) {
    return skip(
      'up-to-date',
      `Pull secret provisioned at generation ${cluster.generation}, verified ${Math.round(lastReportAge / 1000)} s ago`,
    );
  }

  const attempt = sameGeneration ? (own?.data.attempt ?? 0) + 1 : 1;
  const inFlight = sameGeneration && own ? inFlightCheck(own, operation, input) : undefined;
  if (inFlight) return inFlight;

  if (!cluster.deleting) {
    if (input.preconditions.kind === 'not-met') {
      return reportOnce(input, {
        kind: 'not-met',
        precondition: input.preconditions.name,
        message: input.preconditions.message,
      });
    }
    if (input.preconditions.kind === 'error')
      return reportOnce(input, {
        kind: 'precondition-error',
        message: input.preconditions.message,
      });
  }
  if (!cluster.namespace.ok)
    return reportOnce(input, {
      kind: 'launch-failed',
      operation,
      reason: 'InvalidManagementNamespace',
      message: cluster.namespace.problem,
    });
  if (!cluster.managementCluster.ok)
    return reportOnce(input, {
      kind: 'launch-failed',
      operation,
      reason: 'InvalidManagementCluster',
      message: cluster.managementCluster.problem,
    });
  if (!cluster.gcpProjectId)
    return reportOnce(input, {
      kind: 'launch-failed',
      operation,
      reason: 'InvalidClusterSpec',
      message: 'The cluster spec has no GCP project id',
    });

  if (
    sameGeneration &&
    own?.health === 'False' &&
    own.data.failure_kind &&
    own.data.operation === operation
  ) {
    if (own.data.failure_kind === 'permanent' && lastReportAge < settings.permanentFailureRetryMs) {
      return skip(
        'failed-permanently',
        `Generation ${cluster.generation} failed permanently (${own.availableReason ?? 'unknown reason'}); it is retried only on a new generation or after ${Math.round(settings.permanentFailureRetryMs / 60_000)} min`,
      );
    }
    const wait = Math.min(
      settings.retryBackoffMaxMs,
      settings.retryBackoffBaseMs * 2 ** Math.max(0, (own.data.attempt ?? 1) - 1),
    );
    if (own.data.failure_kind === 'transient' && lastReportAge < wait) {
      return skip(
        'backing-off',
        `Attempt ${own.data.attempt ?? 1} failed (${own.availableReason ?? 'unknown reason'}); next attempt in ${Math.round((wait - lastReportAge) / 1000)} s`,
      );
    }
  }
  const reason: LaunchReason = !own
    ? 'first-event'
    : !sameGeneration
      ? 'new-generation'
      : own.available === 'True'
        ? 'resync'
        : 'retry';
  const why = {
    'first-event': 'first event for this cluster',
    'new-generation': `generation ${cluster.generation} is new`,
    resync: 'periodic resync',
    retry: `attempt ${attempt}`,
  }[reason];
  return {
    kind: 'launch',
    operation,
    reason,
    attempt,
    namespace: cluster.namespace.value,
    ...(cluster.managementCluster.value
      ? { managementCluster: cluster.managementCluster.value }
      : {}),
    gcpProjectId: cluster.gcpProjectId,
    message: `Launching ${operation} for generation ${cluster.generation}: ${why}`,
  };
}

/** A report, unless the same one was written at this generation within the heartbeat interval. */
function reportOnce(input: DecisionInput, outcome: StatusOutcome): Decision {
  const { own, cluster, settings, now } = input;
  const reason =
    outcome.kind === 'not-met'
      ? 'PreconditionsNotMet'
      : outcome.kind === 'precondition-error'
        ? 'PreconditionsNotEvaluated'
        : outcome.kind === 'launch-failed'
          ? outcome.reason
          : undefined;
  const message = 'message' in outcome ? outcome.message : '';
  const sameFacts =
    own?.observedGeneration === cluster?.generation &&
    own?.availableReason === reason &&
    (outcome.kind !== 'not-met' || own?.data.precondition === outcome.precondition);
  if (
    sameFacts &&
    own?.lastReportTime &&
    now.getTime() - Date.parse(own.lastReportTime) < settings.heartbeatMs
  ) {
    return skip('already-reported', `Already reported: ${message}`);
  }
  return { kind: 'report', outcome, message };
}

function identityProblem(cluster: ClusterFacts): string | undefined {
  if (!LABEL_SAFE.test(cluster.clusterId)) {
    return `Cluster id ${JSON.stringify(cluster.clusterId.slice(0, 80))} cannot be used: it must be a DNS label (lowercase letters, digits, "-", at most 63) because it becomes a label value and part of resource names`;
  }
  if (cluster.clusterName !== '' && !LABEL_SAFE.test(cluster.clusterName)) {
    return `Cluster name ${JSON.stringify(cluster.clusterName.slice(0, 80))} cannot be used as a label value (lowercase letters, digits, "-", at most 63)`;
  }
  return undefined;
}
