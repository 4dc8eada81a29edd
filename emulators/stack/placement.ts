import type { HyperFleetClient } from '../../shared/hyperfleet/client';
import type { KubeReader } from './kube-admin';

/**
 * Plays the part of placement in the management cluster: once the (simulated) placement adapter
 * reports a cluster's `data.namespace`, the namespace is created in the Kubernetes emulator, as the
 * HyperShift side would do. Polls only clusters it has not handled yet.
 */
export class PlacementSimulator {
  private readonly placed = new Set<string>();

  constructor(
    private readonly api: HyperFleetClient,
    private readonly kube: KubeReader,
    private readonly onPlaced: (clusterId: string, namespace: string) => void = () => undefined,
  ) {}

  async tick(): Promise<void> {
    for (const cluster of await this.api.listAllClusters()) {
      if (this.placed.has(cluster.id) || cluster.deleted_time) continue;
      const placement = (await this.api.listStatuses(cluster.id)).find(
        (s) => s.adapter === 'placement',
      );
      const namespace = placement?.data?.namespace;
      if (typeof namespace !== 'string' || !/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(namespace))
        continue;
      await this.kube.ensureNamespace(namespace);
      this.placed.add(cluster.id);
      this.onPlaced(cluster.id, namespace);
    }
  }
}
