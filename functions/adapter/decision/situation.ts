import type { KeptConvergence, Operation, StatusOutcome } from '../../../shared/status/outcome';
import { keptConvergence, type OwnStatus } from '../../../shared/status/own-status';
import type { ClusterFacts, Decision, DecisionInput, SkipReason } from './decision';

/** What every decision rule reads: the input, and the few facts derived from it once. */
export interface Situation {
  readonly input: DecisionInput;
  /** The cluster exists (a vanished cluster is decided before any rule runs). */
  readonly cluster: ClusterFacts;
  readonly own: OwnStatus | undefined;
  readonly operation: Operation;
  /** Our status is about the cluster's current generation. */
  readonly sameGeneration: boolean;
  /** Milliseconds since our last report; infinite without one. */
  readonly lastReportAge: number;
  /**
   * The attempt a launch now would be: the next one at this generation, else 1. A success at this
   * generation holds the job's claim with its attempt (1 when a report from before attempts were
   * recorded on success does not say), so a resync or drift repair must launch a higher one: with
   * the same attempt the job would stand aside as a duplicate and write nothing.
   */
  readonly attempt: number;
  /**
   * Another adapter reports our pull secret missing or invalid (DRIFT_REPORTED_CONDITION) while
   * our status says it is provisioned at this generation, and a launch could go ahead
   * (preconditions met, namespace, management cluster and project known): a repair is due.
   */
  readonly driftReported: boolean;
  /**
   * Converged at this generation (Available=True, apply): a launch now is a background run that
   * keeps Available=True and the place data until it fails or succeeds.
   */
  readonly kept: KeptConvergence | undefined;
  /**
   * Placement now names another management cluster or namespace than the one our converged status
   * says the pull secret is on: the move is due at once, not at the next resync.
   */
  readonly placementMoved: string | undefined;
  /** Everything a launch needs is there: preconditions met, namespace, management cluster, project. */
  readonly launchable: boolean;
}

/** One step of the decision: a decision when it applies, undefined to let the next rule decide. */
export type DecisionRule = (situation: Situation) => Decision | undefined;

export function situationOf(input: DecisionInput, cluster: ClusterFacts): Situation {
  const { own, now } = input;
  const sameGeneration = own?.observedGeneration === cluster.generation;
  const provisioned = !cluster.deleting && sameGeneration && own?.available === 'True';
  // A repair needs what any launch needs; without it the converged status is left as it is (a
  // flapping precondition must not turn a provisioned cluster into a not-met report).
  const launchable =
    input.preconditions.kind === 'met' &&
    cluster.namespace.ok &&
    cluster.managementCluster.ok &&
    Boolean(cluster.gcpProjectId);
  return {
    input,
    cluster,
    own,
    operation: cluster.deleting ? 'delete' : 'apply',
    sameGeneration,
    lastReportAge: own?.lastReportTime
      ? now.getTime() - Date.parse(own.lastReportTime)
      : Number.POSITIVE_INFINITY,
    attempt: sameGeneration ? (own?.data.attempt ?? (provisioned ? 1 : 0)) + 1 : 1,
    driftReported: provisioned && launchable && input.drift?.kind === 'reported',
    kept: provisioned ? keptConvergence(own) : undefined,
    launchable,
    placementMoved: provisioned && launchable && own ? placementMove(cluster, own) : undefined,
  };
}

/** Where placement now puts the pull secret, when that is not where our status says it is. */
function placementMove(cluster: ClusterFacts, own: OwnStatus): string | undefined {
  const { management_cluster: onCluster, namespace: inNamespace } = own.data;
  const wanted = cluster.managementCluster.ok ? cluster.managementCluster.value : undefined;
  // No placement choice: the job's default cluster, whose name only the job knows.
  if (wanted !== undefined && typeof onCluster === 'string' && wanted !== onCluster)
    return `placement moved the cluster from management cluster ${onCluster} to ${wanted}`;
  const namespace = cluster.namespace.ok ? cluster.namespace.value : undefined;
  if (namespace !== undefined && typeof inNamespace === 'string' && namespace !== inNamespace)
    return `the management namespace changed from ${inNamespace} to ${namespace}`;
  // A layout migration's keep-previous phase left a copy in the previous layout; once the operator
  // moves on to remove-previous (or ends the migration), the copy is due for removal.
  const left = own.data.previous_layout_namespace;
  if (typeof left === 'string' && !cluster.keepsPreviousLayout)
    return `the copy in ${left}, kept while the namespace layout migrated, is to be removed`;
  return undefined;
}

export const skip = (reason: SkipReason, message: string): Decision => ({
  kind: 'skip',
  reason,
  message,
});

/** A report, unless the same one was written at this generation within the heartbeat interval. */
export function reportOnce(situation: Situation, outcome: StatusOutcome): Decision {
  const { own, cluster, input } = situation;
  const reason =
    outcome.kind === 'not-met'
      ? 'PreconditionsNotMet'
      : outcome.kind === 'precondition-error'
        ? 'PreconditionsNotEvaluated'
        : outcome.kind === 'launch-failed'
          ? outcome.reason
          : undefined;
  const message = 'message' in outcome ? outcome.message : '';
  // The generation's last attempt stays on record, so the next launch takes a higher one.
  const attempt = situation.sameGeneration ? own?.data.attempt : undefined;
  const recorded =
    attempt !== undefined &&
    (outcome.kind === 'not-met' ||
      outcome.kind === 'precondition-error' ||
      outcome.kind === 'launch-failed')
      ? { ...outcome, attempt }
      : outcome;
  const sameFacts =
    own?.observedGeneration === cluster.generation &&
    own?.availableReason === reason &&
    (outcome.kind !== 'not-met' || own?.data.precondition === outcome.precondition);
  if (
    sameFacts &&
    own?.lastReportTime &&
    input.now.getTime() - Date.parse(own.lastReportTime) < input.settings.heartbeatMs
  ) {
    return skip('already-reported', `Already reported: ${message}`);
  }
  return { kind: 'report', outcome: recorded, message };
}
