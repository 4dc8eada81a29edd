import type { HyperFleetClient } from '../../../shared/hyperfleet/client';
import type { KubeReader } from '../../common/kube-admin';

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** Where placement put a cluster: `managementCluster` absent means the default one. */
export interface PlacedNamespace {
  readonly managementCluster: string;
  readonly namespace: string;
}

/**
 * Reads placement's `data` into a place, or undefined when it names none or an unusable one.
 * Pure: the simulator and the timeline share it.
 */
export function placementOf(
  data: Record<string, unknown> | null | undefined,
  defaultCluster: string,
): PlacedNamespace | undefined {
  const namespace = data?.namespace;
  const cluster = data?.managementCluster ?? defaultCluster;
  if (typeof namespace !== 'string' || !DNS_LABEL.test(namespace)) return undefined;
  if (typeof cluster !== 'string' || !DNS_LABEL.test(cluster)) return undefined;
  return { managementCluster: cluster, namespace };
}

/**
 * Plays the part of placement in the management clusters: once the (simulated) placement adapter
 * reports a cluster's `data.managementCluster` and `data.namespace`, the namespace is created in
 * that cluster's Kubernetes emulator, as the HyperShift side would do. A move (another place at a
 * new generation) creates the namespace in the new place. A cluster is looked at again only when
 * its generation changed; a place naming an unknown management cluster creates nothing.
 */
export class PlacementSimulator {
  /** Cluster id -> the generation last looked at and the place it had. */
  private readonly seen = new Map<string, { generation: number; place?: string }>();

  constructor(
    private readonly api: HyperFleetClient,
    private readonly clusters: ReadonlyMap<string, KubeReader>,
    private readonly defaultCluster: string,
    private readonly onPlaced: (clusterId: string, place: PlacedNamespace) => void = () =>
      undefined,
  ) {}

  async tick(): Promise<void> {
    for (const cluster of await this.api.listAllClusters()) {
      const seen = this.seen.get(cluster.id);
      if (cluster.deleted_time || seen?.generation === cluster.generation) continue;
      const status = (await this.api.listStatuses(cluster.id)).find(
        (s) => s.adapter === 'placement',
      );
      // Placement reports after the generation changes: look again until it has.
      if (status?.observed_generation !== cluster.generation) continue;
      const place = placementOf(status.data, this.defaultCluster);
      const key = place ? `${place.managementCluster}/${place.namespace}` : undefined;
      const kube = place ? this.clusters.get(place.managementCluster) : undefined;
      if (place && kube && key !== seen?.place) {
        await kube.ensureNamespace(place.namespace);
        this.onPlaced(cluster.id, place);
      }
      this.seen.set(cluster.id, { generation: cluster.generation, ...(key ? { place: key } : {}) });
    }
  }
}
