import type { Decision, DecisionInput, LaunchReason } from './decision';
import {
  alreadyFinalized,
  backingOff,
  convergedAwaitingLaunch,
  driftRepairBackoff,
  failedPermanently,
  inFlight,
  invalidIdentity,
  invalidManagementCluster,
  invalidNamespace,
  noGcpProject,
  nothingToCleanUp,
  preconditionsNotEvaluated,
  preconditionsNotMet,
  staleEvent,
  upToDate,
} from './rules';
import { situationOf, skip, type DecisionRule, type Situation } from './situation';

/**
 * The rules in the order they are asked; the first that applies decides. The order matters: a
 * run under way is watched first (in-flight), also a converged cluster's background run; a
 * converged cluster is left alone even when another adapter flaps (up-to-date, then
 * converged-awaiting-launch, before the preconditions), and a deletion never waits for
 * preconditions. A reported drift or a placement move makes up-to-date yield, so its repair
 * passes every rule after it, exactly as any other launch does.
 */
const RULES: readonly DecisionRule[] = [
  staleEvent,
  invalidIdentity,
  alreadyFinalized,
  nothingToCleanUp,
  inFlight,
  driftRepairBackoff,
  upToDate,
  convergedAwaitingLaunch,
  preconditionsNotMet,
  preconditionsNotEvaluated,
  invalidNamespace,
  invalidManagementCluster,
  noGcpProject,
  failedPermanently,
  backingOff,
];

/**
 * Decides what one event asks for. Pure: no I/O, no clock but `now`. A cluster that no longer
 * exists is left alone; otherwise the first rule that applies decides, and when none does, the
 * job is launched.
 */
export function decide(input: DecisionInput): Decision {
  const { event, cluster } = input;
  if (!cluster)
    return skip('cluster-gone', `Cluster ${event.clusterId} no longer exists; nothing to report`);
  const situation = situationOf(input, cluster);
  for (const rule of RULES) {
    const decision = rule(situation);
    if (decision) return decision;
  }
  return launch(situation);
}

/** Why a launch happens, in words for the log. */
function launchReason({
  own,
  sameGeneration,
  driftReported,
  placementMoved,
}: Situation): LaunchReason {
  if (!own) return 'first-event';
  if (!sameGeneration) return 'new-generation';
  if (driftReported) return 'drift-reported';
  if (placementMoved) return 'placement-changed';
  return own.available === 'True' ? 'resync' : 'retry';
}

/** No rule stood in the way: launch the job (the rules above guarantee the facts it needs). */
function launch(situation: Situation): Decision {
  const { cluster, operation, attempt, kept } = situation;
  const { namespace, managementCluster, gcpProjectId } = cluster;
  if (!namespace.ok || !managementCluster.ok || !gcpProjectId)
    throw new Error('decide: launch reached without a namespace, management cluster or project');
  const reason = launchReason(situation);
  const why = {
    'first-event': 'first event for this cluster',
    'new-generation': `generation ${cluster.generation} is new`,
    resync: 'periodic resync',
    retry: `attempt ${attempt}`,
    'drift-reported': 'another adapter reports the pull secret missing or invalid (drift)',
    'placement-changed': situation.placementMoved ?? 'placement changed',
  }[reason];
  return {
    kind: 'launch',
    operation,
    reason,
    attempt,
    namespace: namespace.value,
    ...(managementCluster.value ? { managementCluster: managementCluster.value } : {}),
    gcpProjectId,
    ...(kept ? { kept } : {}),
    message: `Launching ${operation} for generation ${cluster.generation}: ${why}`,
  };
}
