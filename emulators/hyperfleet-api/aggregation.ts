import type { ConditionStatus, StoredCluster, StoredClusterCondition } from './model';

/** `pullsecret` -> `PullsecretSuccessful`, as the API names per-adapter cluster conditions. */
export function successfulConditionType(adapter: string): string {
  return `${adapter.charAt(0).toUpperCase()}${adapter.slice(1)}Successful`;
}

const statusOf = (cluster: StoredCluster, adapter: string, type: string) =>
  cluster.statuses.get(adapter)?.conditions.find((c) => c.type === type)?.status;

/**
 * Recomputes a cluster's conditions from the adapters' reports: `Reconciled` (every required
 * adapter Available=True, or Finalized=True while deleting, at the current generation),
 * `LastKnownReconciled` (sticky: all required adapters Available=True at a common generation), and
 * `<Name>Successful` mirroring each reporting required adapter's Available. Timestamps follow the
 * API: created once, updated on each computation, transitioned only when the status changes.
 */
export function aggregateConditions(
  cluster: StoredCluster,
  required: readonly string[],
  now: Date,
): StoredClusterCondition[] {
  const time = now.toISOString();
  const previous = new Map(cluster.conditions.map((c) => [c.type, c]));
  const condition = (
    type: string,
    status: ConditionStatus,
    reason: string,
    message: string,
    observedGeneration: number,
    updated = time,
  ): StoredClusterCondition => {
    const old = previous.get(type);
    return {
      type,
      status,
      reason,
      message,
      observed_generation: observedGeneration,
      created_time: old?.created_time ?? time,
      last_updated_time: updated,
      last_transition_time: old && old.status === status ? old.last_transition_time : time,
    };
  };

  const deleting = cluster.deleted_time !== undefined;
  const lagging = required.filter((adapter) => {
    const status = cluster.statuses.get(adapter);
    if (!status || status.observed_generation !== cluster.generation) return true;
    return deleting
      ? statusOf(cluster, adapter, 'Finalized') !== 'True'
      : statusOf(cluster, adapter, 'Available') !== 'True';
  });
  const reconciled =
    lagging.length === 0
      ? condition(
          'Reconciled',
          'True',
          'ReconciledAll',
          'All required adapters reported Available=True or Finalized=True at the current generation',
          cluster.generation,
        )
      : condition(
          'Reconciled',
          'False',
          'AdaptersPending',
          `Waiting for ${lagging.join(', ')} at generation ${cluster.generation}`,
          cluster.generation,
        );

  const generations = required.map((adapter) =>
    statusOf(cluster, adapter, 'Available') === 'True'
      ? cluster.statuses.get(adapter)?.observed_generation
      : undefined,
  );
  const common = generations.every((g) => g !== undefined && g === generations[0])
    ? generations[0]
    : undefined;
  const sticky = previous.get('LastKnownReconciled');
  const lastKnown =
    common !== undefined
      ? condition(
          'LastKnownReconciled',
          'True',
          'AllAdaptersReconciled',
          'All required adapters report Available=True for the tracked generation',
          common,
        )
      : sticky?.status === 'True'
        ? { ...sticky, last_updated_time: time }
        : condition(
            'LastKnownReconciled',
            'False',
            'NeverReconciled',
            'The required adapters have not all reported Available=True at one generation yet',
            cluster.generation,
          );

  const perAdapter = required.flatMap((adapter) => {
    const status = cluster.statuses.get(adapter);
    const available = status?.conditions.find((c) => c.type === 'Available');
    if (!status || !available) return [];
    return [
      condition(
        successfulConditionType(adapter),
        available.status,
        available.reason ?? 'Reported',
        available.message ?? `${adapter} reported`,
        status.observed_generation,
        status.last_report_time,
      ),
    ];
  });
  return [reconciled, lastKnown, ...perAdapter];
}
