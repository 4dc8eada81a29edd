import { EventQueue } from './event-queue';
import type { CallLatencies, CallShape, RotationParameters } from './rotation-parameters';
import { TokenBucket, busiestWindow } from './token-bucket';

/** One batched execution over a fleet: what it is asked to do. */
export interface BatchInput {
  readonly clusters: number;
  readonly managementClusters: number;
  /** How the tasks reach the management clusters' Kubernetes APIs. */
  readonly reach: 'direct' | 'connect-gateway';
  /** The calls of one cluster's apply (a cluster not applied costs its status read only). */
  readonly shape: CallShape;
  /** Which clusters are applied: every one (a resync) or those on the default (a rotation). */
  readonly appliedShare: number;
  /** When the execution's tasks may begin starting (ms after the simulation's zero). */
  readonly startMs: number;
  readonly latencies: CallLatencies;
}

/** What the execution did, in simulated ms from the simulation's zero. */
export interface BatchOutcome {
  readonly tasks: number;
  /** The last management-cluster Secret written (the last apply's last Kubernetes call answered). */
  readonly lastSecretMs: number;
  /** The last task's end. */
  readonly endMs: number;
  readonly longestTaskMs: number;
  /** Task-seconds Cloud Run bills: every task from its container start to its end. */
  readonly billedTaskSeconds: number;
  readonly applied: number;
  readonly calls: { secretManager: number; kubernetes: number; hyperfleet: number };
  /** Connect Gateway calls a minute each task was paced to (Infinity when reached directly). */
  readonly perTaskPerMinute: number;
  /** The most Kubernetes calls in any 60 s, all tasks together, and on the busiest management cluster. */
  readonly busiestKubernetesMinute: number;
  readonly busiestManagementClusterMinute: number;
}

type Step = 'hyperfleet' | 'secretManager' | 'kubernetes';

/**
 * The apply's calls in the job's order (docs/design/job-protocol.md): the cluster check, the
 * claim and the default's bytes, the Kubernetes read and write, the claim re-check, the check
 * after. The task's own status read comes first, whether or not the cluster is applied.
 */
function applySteps(shape: CallShape): Step[] {
  const hyperfleetBefore = Math.ceil(shape.hyperfleet / 2);
  const secretManagerAfter = Math.min(1, shape.secretManager);
  return [
    'hyperfleet',
    ...Array<Step>(hyperfleetBefore).fill('hyperfleet'),
    ...Array<Step>(shape.secretManager - secretManagerAfter).fill('secretManager'),
    ...Array<Step>(shape.kubernetes).fill('kubernetes'),
    ...Array<Step>(secretManagerAfter).fill('secretManager'),
    ...Array<Step>(shape.hyperfleet - hyperfleetBefore).fill('hyperfleet'),
  ];
}

/** Cluster k is applied when the share's running total steps past a whole number: evenly spread. */
const isApplied = (k: number, share: number) => Math.floor((k + 1) * share) > Math.floor(k * share);

/**
 * Simulates one Cloud Run execution in batch mode, event by event: T tasks started `parallelism`
 * at a time, each paying its container start, listing its pages of the cluster list and applying
 * its clusters `taskConcurrency` at a time; through Connect Gateway each task paces its
 * Kubernetes calls with its own token bucket at its share of the fleet's quota.
 */
export function simulateBatch(input: BatchInput, p: RotationParameters): BatchOutcome {
  const q = new EventQueue();
  const lat = input.latencies;
  const tasks = Math.min(p.maxTasks, Math.max(1, Math.ceil(input.clusters / p.clustersPerTask)));
  const pages = Math.ceil(input.clusters / p.pageSize);
  const sharers = p.connectGatewayShare === 'tasks' ? tasks : Math.min(tasks, p.parallelism);
  const viaGateway = input.reach === 'connect-gateway';
  const perTaskPerMinute = viaGateway
    ? (p.connectGatewayPerMinute * p.connectGatewayHeadroom) / sharers
    : Number.POSITIVE_INFINITY;
  const applied = applySteps(input.shape);
  const statusOnly: Step[] = ['hyperfleet'];
  const latency: Record<Step, number> = {
    hyperfleet: lat.hyperfleetMs,
    secretManager: lat.secretManagerMs,
    kubernetes: lat.kubernetesMs + (viaGateway ? lat.connectGatewayExtraMs : 0),
  };
  const kubernetesCalls: number[] = [];
  const perManagementCluster: number[][] = Array.from(
    { length: input.managementClusters },
    () => [],
  );
  const counts = { secretManager: 0, kubernetes: 0, hyperfleet: 0 };
  let appliedCount = 0;
  let lastSecretMs = 0;
  let endMs = input.startMs;
  let longestTaskMs = 0;
  let billedMs = 0;
  let nextTask = 0;

  const startTask = (index: number) => {
    const startedAt = q.now();
    const bucket = viaGateway ? new TokenBucket(perTaskPerMinute, 1, startedAt) : undefined;
    const queue: number[] = [];
    let listed = false;
    let idle: (() => void)[] = [];
    let working = p.taskConcurrency;
    const finish = () => {
      endMs = Math.max(endMs, q.now());
      longestTaskMs = Math.max(longestTaskMs, q.now() - startedAt);
      billedMs += q.now() - startedAt;
      if (nextTask < tasks) startTask(nextTask++);
    };
    // The task's pages, one after another, each handed to the workers as it arrives.
    const listPage = (page: number) => {
      counts.hyperfleet++;
      q.schedule(q.now() + lat.listPageMs, () => {
        const first = page * p.pageSize;
        for (let k = first; k < Math.min(input.clusters, first + p.pageSize); k++) queue.push(k);
        if (page + tasks < pages) listPage(page + tasks);
        else listed = true;
        const waiting = idle;
        idle = [];
        waiting.forEach((wake) => wake());
      });
    };
    const worker = () => {
      const cluster = queue.shift();
      if (cluster === undefined) {
        if (!listed) idle.push(worker);
        else if (--working === 0) finish();
        return;
      }
      const apply = isApplied(cluster, input.appliedShare);
      if (apply) appliedCount++;
      const steps = apply ? applied : statusOnly;
      const lastKubernetes = steps.lastIndexOf('kubernetes');
      const call = (i: number) => {
        if (i === steps.length) return worker();
        const step = steps[i]!;
        counts[step]++;
        let at = q.now();
        if (step === 'kubernetes') {
          at = bucket ? bucket.take(at) : at;
          kubernetesCalls.push(at);
          perManagementCluster[cluster % input.managementClusters]!.push(at);
        }
        q.schedule(at + latency[step], () => {
          if (i === lastKubernetes) lastSecretMs = Math.max(lastSecretMs, q.now());
          call(i + 1);
        });
      };
      call(0);
    };
    // The container starts, then the first page is read while the workers wait for it.
    q.schedule(startedAt + p.taskStartMs, () => {
      if (index < pages) listPage(index);
      else listed = true;
      for (let w = 0; w < p.taskConcurrency; w++) worker();
    });
  };

  q.schedule(input.startMs, () => {
    while (nextTask < Math.min(tasks, p.parallelism)) startTask(nextTask++);
  });
  q.run();
  return {
    tasks,
    lastSecretMs,
    endMs,
    longestTaskMs,
    billedTaskSeconds: billedMs / 1000,
    applied: appliedCount,
    calls: counts,
    perTaskPerMinute,
    busiestKubernetesMinute: busiestWindow(kubernetesCalls),
    busiestManagementClusterMinute: Math.max(...perManagementCluster.map((c) => busiestWindow(c))),
  };
}
