import type { Cluster } from '../../../shared/hyperfleet/schemas';
import type { TimelineEvent } from './timeline';

/**
 * Reports changes of each cluster's PullsecretSuccessful, HypershiftSuccessful and Reconciled
 * conditions (Reconciled=True is the cluster Ready), and deletions.
 */
export class ConditionWatcher {
  private readonly seen = new Map<string, string>();

  /** Compares with the previous poll; returns what changed. */
  diff(clusters: readonly Cluster[]): TimelineEvent[] {
    const events: TimelineEvent[] = [];
    const present = new Set<string>();
    for (const cluster of clusters) {
      present.add(cluster.id);
      for (const type of ['PullsecretSuccessful', 'HypershiftSuccessful', 'Reconciled']) {
        const condition = cluster.status?.conditions.find((c) => c.type === type);
        if (!condition) continue;
        const key = `${cluster.id}/${type}`;
        const state = `${condition.status}@${condition.observed_generation ?? '?'}`;
        if (this.seen.get(key) === state) continue;
        this.seen.set(key, state);
        events.push({
          component: 'hyperfleet',
          clusterId: cluster.id,
          text: `${type}=${condition.status} at generation ${condition.observed_generation ?? '?'} (${condition.reason ?? ''})${type === 'Reconciled' && condition.status === 'True' ? ': Ready' : ''}`,
        });
      }
      if (cluster.deleted_time && !this.seen.has(`${cluster.id}/deleting`)) {
        this.seen.set(`${cluster.id}/deleting`, 'yes');
        events.push({
          component: 'hyperfleet',
          clusterId: cluster.id,
          text: `deletion requested (generation ${cluster.generation})`,
        });
      }
    }
    for (const key of [...this.seen.keys()]) {
      const id = key.split('/')[0]!;
      if (!present.has(id) && key.endsWith('/Reconciled')) {
        events.push({
          component: 'hyperfleet',
          clusterId: id,
          text: 'cluster hard-deleted (every required adapter reported Finalized=True)',
        });
        for (const k of [...this.seen.keys()]) if (k.startsWith(`${id}/`)) this.seen.delete(k);
      }
    }
    return events;
  }
}
