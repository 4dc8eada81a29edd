import path from 'node:path';
import type { HyperFleetClient } from '../../../shared/hyperfleet/client';
import { managementClusterReaders, type KubeReader } from '../../common/kube-admin';
import { localStackClients } from '../hyperfleet/local-hyperfleet-client';
import { ConditionWatcher } from './condition-watcher';
import { DEFAULT_MANAGEMENT_CLUSTER } from './layout';
import { LogTailer } from './log-tailer';
import { PlacementSimulator } from './placement';
import type { StackDescription } from './stack-description';
import { formatEvent, timelineEvents, type TimelineEvent } from './timeline';

type Clusters = Awaited<ReturnType<HyperFleetClient['listAllClusters']>>;

/** What `npm start` prints while it runs, and the clients it watches the system with. */
export interface LiveTimeline {
  /** A tenant's client (a user creates the demo cluster). */
  readonly api: HyperFleetClient;
  /** The system's client, as adapters read and report. */
  readonly system: HyperFleetClient;
  readonly kubes: Map<string, KubeReader>;
  /** Cluster id -> name, for the timeline's lines. */
  readonly names: Map<string, string>;
  /** The clusters as the last poll saw them. */
  clusters(): Clusters;
  /** One poll: clusters, simulated placement, new log lines, then the API's changes. */
  tick(): Promise<void>;
  /** Prints the API's changes held back by the last poll. */
  flushHeldBack(): void;
  /** Stops polling. */
  stop(): void;
}

export interface TimelineOutput {
  readonly json: boolean;
  readonly started: number;
  readonly say: (text: string, extra?: Record<string, unknown>) => void;
  /** True once Ctrl-C or SIGTERM arrived: the components are going away, polls may fail. */
  readonly isStopping: () => boolean;
}

/**
 * Polls the running stack every 500 ms and prints a timeline: the components' log lines and the
 * API's condition changes. It also plays the placement adapter's part on the Kubernetes side
 * (namespace creation), which the HyperFleet API emulator only reports.
 */
export function startLiveTimeline(d: StackDescription, o: TimelineOutput): LiveTimeline {
  const { tenant: api, system } = localStackClients(d);
  const kubes = managementClusterReaders(d.managementClusters);
  const names = new Map<string, string>();
  const tailer = new LogTailer(
    [
      path.join(d.logDir, 'sentinel.log'),
      path.join(d.logDir, 'hypershift.log'),
      ...d.adapters.instances.map((i) => i.logFile),
      path.join(d.logDir, 'reporter.log'),
    ],
    [path.join(d.logDir, 'jobs')],
  );
  const watcher = new ConditionWatcher();
  const print = (event: TimelineEvent) =>
    process.stdout.write(`${formatEvent(event, Date.now() - o.started, o.json, names)}\n`);
  const placement = new PlacementSimulator(system, kubes, DEFAULT_MANAGEMENT_CLUSTER, (id, place) =>
    print({
      component: 'placement',
      clusterId: id,
      text: `namespace ${place.namespace} created in management cluster ${place.managementCluster}`,
    }),
  );
  let clusters: Clusters = [];
  // Changes seen in the API are printed one poll late: the component that caused one logs it just
  // after the API has it, and the timeline should read cause first.
  let heldBack: TimelineEvent[] = [];
  const flushHeldBack = () => {
    heldBack.forEach(print);
    heldBack = [];
  };
  const tick = async () => {
    clusters = await api.listAllClusters();
    for (const cluster of clusters) names.set(cluster.id, cluster.name);
    await placement.tick();
    for (const line of tailer.poll()) timelineEvents(line).forEach(print);
    flushHeldBack();
    heldBack = watcher.diff(clusters);
  };
  const loop = setInterval(
    () =>
      void tick().catch((error: unknown) => {
        if (!o.isStopping())
          o.say(`timeline: ${error instanceof Error ? error.message : String(error)}`);
      }),
    500,
  );
  return {
    api,
    system,
    kubes,
    names,
    clusters: () => clusters,
    tick,
    flushHeldBack,
    stop: () => clearInterval(loop),
  };
}
