import type { StoredCluster } from '../../emulators/hyperfleet-api/model';
import type { HyperFleetStore } from '../../emulators/hyperfleet-api/store';
import type { ClusterLister } from '../../emulators/pullsecret/sentinel/sentinel';
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
  private readonly views = new WeakMap<
    StoredCluster,
    { conditions: unknown; generation: number; deleted: string | undefined; view: Cluster }
  >();

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
      if (stored) clusters.push(this.view(stored));
    }
    this.listCalls += Math.max(1, Math.ceil(clusters.length / SENTINEL_PAGE_SIZE));
    return Promise.resolve(clusters);
  }

  /**
   * What Sentinel's rules read, made again only when the cluster changed (the store replaces a
   * cluster's conditions array on every change): remaking 10,000 views every 5 s was most of a
   * quiet hour's cost. Sentinel only reads them; labels and spec are shared with the store.
   */
  private view(stored: StoredCluster): Cluster {
    const cached = this.views.get(stored);
    if (
      cached?.conditions === stored.conditions &&
      cached.generation === stored.generation &&
      cached.deleted === stored.deleted_time
    )
      return cached.view;
    const view: Cluster = {
      id: stored.id,
      kind: 'Cluster',
      name: stored.name,
      href: `/api/hyperfleet/v1/clusters/${stored.id}`,
      labels: stored.labels,
      generation: stored.generation,
      spec: stored.spec,
      deleted_time: stored.deleted_time,
      status: { conditions: stored.conditions.map((condition) => ({ ...condition })) },
    };
    this.views.set(stored, {
      conditions: stored.conditions,
      generation: stored.generation,
      deleted: stored.deleted_time,
      view,
    });
    return view;
  }
}
