import type { AdapterStatus, Cluster } from '../../../shared/hyperfleet/schemas';
import type { BatchSelector } from '../../../shared/batch/batch-request';
import type { NamespaceLayout } from '../../../shared/pull-secret/namespace-layout';
import { IN_FLIGHT_REASONS, readOwnStatus } from '../../../shared/status/own-status';
import type { LaunchRequest } from '../../../shared/launch/execution-env';
import { clusterFacts } from '../../../shared/hyperfleet/cluster-facts';
import {
  hasPullSecretInSpec,
  pullSecretReference,
  type PullSecretSettings,
} from '../../../shared/pull-secret/pull-secret-reference';

// Which clusters a batch task re-applies, and with what: pure. A batch touches only clusters our
// status says are converged at their current generation and idle, placed where placement still
// puts them. Everything else (a new generation, a run in flight, a failure backing off, a
// placement move, a precondition not met) is the adapter's, whose rules decide it per event; a
// batch that also launched it would race the adapter for no gain. The per-cluster run is exactly
// the one the adapter would launch for a resync (the same env, built by the same executionEnv),
// so the job's claim, places and reports work unchanged.

export interface BatchSelectionContext {
  readonly selector: BatchSelector;
  readonly layout: NamespaceLayout;
  /** The pull secret settings; `defaultVersion` is the rotation's pinned version when there is one. */
  readonly pullSecret: PullSecretSettings;
  /** Names the per-cluster launch (LAUNCH_ID): the execution and the cluster. */
  readonly launchIdPrefix: string;
}

export type BatchChoice =
  | { readonly kind: 'apply'; readonly request: LaunchRequest }
  | {
      readonly kind: 'skip';
      /** A code for the batch's counts: not-selected (outside the selector) or left to the adapter. */
      readonly reason: 'not-selected' | 'adapter';
      readonly why: string;
    };

const skip = (
  reason: 'not-selected' | 'adapter',
  why: string,
): Extract<BatchChoice, { kind: 'skip' }> => ({
  kind: 'skip',
  reason,
  why,
});

/** Outside the selector by the cluster alone (no status read needed); undefined: read on. */
export function selectedBySpec(
  cluster: Cluster,
  context: BatchSelectionContext,
): Extract<BatchChoice, { kind: 'skip' }> | undefined {
  const { selector, pullSecret } = context;
  if (selector.kind === 'clusters' && !selector.ids.includes(cluster.id))
    return skip('not-selected', 'not one of the requested clusters');
  if (selector.kind !== 'default') return undefined;
  if (hasPullSecretInSpec(cluster, pullSecret.specPath))
    return skip('not-selected', 'has its own pull secret');
  if (!pullSecret.defaultVersion)
    return skip('not-selected', 'no default pull secret is configured');
  return undefined;
}

export function chooseForBatch(
  cluster: Cluster,
  statuses: readonly AdapterStatus[],
  context: BatchSelectionContext,
): BatchChoice {
  const { selector, pullSecret } = context;
  const outside = selectedBySpec(cluster, context);
  if (outside) return outside;
  const facts = clusterFacts(cluster, statuses, context.layout);
  if (facts.deleting) return skip('adapter', 'being deleted');
  const own = readOwnStatus(statuses);
  if (!own || own.observedGeneration !== cluster.generation || own.available !== 'True')
    return skip('adapter', `not converged at generation ${cluster.generation}`);
  if (IN_FLIGHT_REASONS.has(own.appliedReason ?? ''))
    return skip('adapter', `a run is in flight (${own.appliedReason})`);
  const placed = own.data.management_cluster;
  if (selector.kind === 'management-cluster' && placed !== selector.name)
    return skip(
      'not-selected',
      `placed on ${typeof placed === 'string' ? placed : 'the default management cluster'}`,
    );
  if (!facts.namespace.ok) return skip('adapter', facts.namespace.problem);
  if (!facts.managementCluster.ok) return skip('adapter', facts.managementCluster.problem);
  const wanted = facts.managementCluster.value;
  if (wanted !== undefined && typeof placed === 'string' && wanted !== placed)
    return skip('adapter', `placement moved it from ${placed} to ${wanted}`);
  if (own.data.namespace !== undefined && own.data.namespace !== facts.namespace.value)
    return skip('adapter', `the namespace layout moves it from ${String(own.data.namespace)}`);
  if (!facts.gcpProjectId) return skip('adapter', 'no GCP project in the spec');
  return {
    kind: 'apply',
    request: {
      clusterId: cluster.id,
      clusterName: cluster.name,
      generation: cluster.generation,
      gcpProjectId: facts.gcpProjectId,
      namespace: facts.namespace.value,
      ...(wanted !== undefined ? { managementCluster: wanted } : {}),
      operation: 'apply',
      // As the adapter's resync: the next attempt at this generation, so the claim is taken over.
      attempt: (own.data.attempt ?? 1) + 1,
      launchId: `${context.launchIdPrefix}-${cluster.id}`.slice(0, 200),
      pullSecret: pullSecretReference(cluster, pullSecret),
    },
  };
}
