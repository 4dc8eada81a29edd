import type { Cluster } from '../../../shared/hyperfleet/schemas';

/** How often Sentinel re-publishes (real Sentinel: about 10 s until reconciled, 30 min after). */
export interface SentinelIntervals {
  readonly notReadyMs: number;
  readonly readyMs: number;
}

/** Whether to publish a reconcile event for a cluster now, and why. */
export type PublishDecision =
  { readonly publish: true; readonly reason: string } | { readonly publish: false };

/**
 * The real Sentinel's rules: a new cluster at once; a cluster whose generation is ahead of
 * Reconciled's observed generation, or that is not reconciled, every `notReadyMs`; a reconciled
 * cluster every `readyMs` (when its last reconcile is that old).
 */
export function shouldPublish(
  cluster: Cluster,
  lastPublishedAt: number | undefined,
  now: number,
  intervals: SentinelIntervals,
): PublishDecision {
  if (lastPublishedAt === undefined) return { publish: true, reason: 'new cluster' };
  const reconciled = cluster.status?.conditions.find((c) => c.type === 'Reconciled');
  const since = now - lastPublishedAt;
  if (!reconciled || (reconciled.observed_generation ?? 0) < cluster.generation) {
    return since >= intervals.notReadyMs
      ? { publish: true, reason: `generation ${cluster.generation} ahead of Reconciled` }
      : { publish: false };
  }
  if (reconciled.status !== 'True')
    return since >= intervals.notReadyMs
      ? { publish: true, reason: 'not reconciled' }
      : { publish: false };
  return since >= intervals.readyMs
    ? { publish: true, reason: 'reconciled, periodic re-check' }
    : { publish: false };
}
