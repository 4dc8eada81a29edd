import { uuid7 } from '../hyperfleet-api/uuid7';
import type { HyperFleetClient } from '../../shared/hyperfleet/client';
import type { Cluster } from '../../shared/hyperfleet/schemas';
import { shouldPublish, type SentinelIntervals } from './rules';

/** Sentinel's structured CloudEvent for a cluster (the whole event goes into the Pub/Sub message). */
export function reconcileEvent(
  cluster: Pick<Cluster, 'id' | 'generation' | 'href'>,
): Record<string, unknown> {
  return {
    specversion: '1.0',
    type: 'com.redhat.hyperfleet.cluster.reconcile',
    source: 'hyperfleet-sentinel',
    id: uuid7(),
    datacontenttype: 'application/json',
    data: {
      id: cluster.id,
      kind: 'Cluster',
      href: cluster.href ?? `/api/hyperfleet/v1/clusters/${cluster.id}`,
      generation: cluster.generation,
    },
  };
}

/** Where Sentinel reads the clusters: the HyperFleet API, or (in the fleet simulation) its store. */
export type ClusterLister = Pick<HyperFleetClient, 'listAllClusters'>;

/** Where events go: the topic, with `_watermill_message_uuid` as the only attribute, as Sentinel does. */
export type EventSink = (event: Record<string, unknown>) => Promise<void>;

/** A small Sentinel: polls the HyperFleet API and publishes reconcile events by the real rules. */
export class Sentinel {
  private readonly lastPublished = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly api: ClusterLister,
    private readonly sink: EventSink,
    private readonly intervals: SentinelIntervals,
    private readonly onPublish: (cluster: Cluster, reason: string) => void = () => undefined,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  start(pollMs: number): void {
    const loop = async () => {
      this.running = this.tick().then(() => undefined, this.onError);

      await this.running;
      this.timer = setTimeout(() => void loop(), pollMs);
    };
    void loop();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One poll: publishes what the rules ask for; forgets clusters that are gone. */
  async tick(now = Date.now()): Promise<number> {
    const clusters = await this.api.listAllClusters();
    const seen = new Set(clusters.map((c) => c.id));
    for (const id of this.lastPublished.keys()) if (!seen.has(id)) this.lastPublished.delete(id);
    let published = 0;
    for (const cluster of clusters) {
      const decision = shouldPublish(
        cluster,
        this.lastPublished.get(cluster.id),
        now,
        this.intervals,
      );
      if (!decision.publish) continue;
      await this.sink(reconcileEvent(cluster));
      this.lastPublished.set(cluster.id, now);
      this.onPublish(cluster, decision.reason);
      published++;
    }
    return published;
  }
}
