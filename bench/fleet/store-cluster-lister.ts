import type { HyperFleetStore } from '../../emulators/hyperfleet-api/store';
import type { ClusterLister } from '../../emulators/sentinel/sentinel';
import type { Cluster } from '../../shared/hyperfleet/schemas';

/** The page size Sentinel's client asks for (HyperFleetClient.listAllClusters). */
const SENTINEL_PAGE_SIZE = 100;

/**
 * Sentinel's view of the fleet read straight from the HyperFleet emulator's store, for the fleet
 * simulation. Sentinel is not what the simulation measures, but over HTTP its polling (every
 * cluster every 5 s: 14 million cluster reads in two hours at 10,000 clusters) cost more than
 * everything measured together. `pages` counts the list calls a real Sentinel would make.
 */
export class StoreClusterLister implements ClusterLister {
  private listCalls = 0;

  constructor(
    private readonly store: HyperFleetStore,
    private readonly ids: () => Iterable<string>,
  ) {}

  /** GET /clusters calls a real Sentinel would have made so far. */
  get pages(): number {
    return this.listCalls;
  }

  listAllClusters(): Promise<Cluster[]> {
    const clusters: Cluster[] = [];
    for (const id of this.ids()) {
      const stored = this.store.cluster(id);
      if (!stored) continue;
      // Sentinel only reads these: labels and spec are shared with the store, not copied.
      clusters.push({
        id: stored.id,
        kind: 'Cluster',
        name: stored.name,
        href: `/api/hyperfleet/v1/clusters/${stored.id}`,
        labels: stored.labels,
        generation: stored.generation,
        spec: stored.spec,
        deleted_time: stored.deleted_time,
        status: { conditions: stored.conditions.map((condition) => ({ ...condition })) },
      });
    }
    this.listCalls += Math.max(1, Math.ceil(clusters.length / SENTINEL_PAGE_SIZE));
    return Promise.resolve(clusters);
  }
}
