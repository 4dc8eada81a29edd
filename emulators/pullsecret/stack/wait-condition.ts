import type { Cluster } from '../../../shared/hyperfleet/schemas';

/** What `npm run wait` waits for: a condition's status at the cluster's current generation, or its removal. */
export type WaitTarget =
  | { readonly kind: 'condition'; readonly type: string; readonly status: string }
  | { readonly kind: 'deleted' };

/** Whether the target is reached, and the state in words (for progress and the timeout message). */
export interface WaitCheck {
  readonly met: boolean;
  readonly state: string;
}

/**
 * A condition counts only when it was computed for the cluster's current generation: right after
 * a change, `PullsecretSuccessful=True` still describes the previous generation, and waiting for
 * it would return at once.
 */
export function checkWait(cluster: Cluster | undefined, target: WaitTarget): WaitCheck {
  if (target.kind === 'deleted')
    return cluster
      ? {
          met: false,
          state: cluster.deleted_time
            ? `deletion requested, not yet finalized by every adapter (generation ${cluster.generation})`
            : `not deleted (generation ${cluster.generation})`,
        }
      : { met: true, state: 'deleted' };
  if (!cluster) return { met: false, state: 'the cluster does not exist' };
  const condition = cluster.status?.conditions.find((c) => c.type === target.type);
  if (!condition)
    return {
      met: false,
      state: `no ${target.type} condition yet (conditions: ${cluster.status?.conditions.map((c) => c.type).join(', ') || 'none'})`,
    };
  const observed = condition.observed_generation;
  const state = `${target.type}=${condition.status} at generation ${observed ?? '?'} of ${cluster.generation}${condition.reason ? ` (${condition.reason}${condition.message ? `: ${condition.message}` : ''})` : ''}`;
  return { met: condition.status === target.status && observed === cluster.generation, state };
}
