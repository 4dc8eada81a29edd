import { round } from '../stats';
import { simulateBatch, type BatchInput, type BatchOutcome } from './batch-execution';
import {
  DEFAULT_ROTATION_PARAMETERS,
  TARGET_MINUTES,
  type CallLatencies,
  type CallShape,
  type RotationParameters,
} from './rotation-parameters';
import { TokenBucket } from './token-bucket';

/** The job bench's figures for one kind of run (bench/reference.json, section `job`). */
export interface JobRunReference {
  readonly kind: string;
  readonly wallMsP50: number;
  readonly secretManagerCalls: number;
  readonly kubernetesCalls: number;
  readonly hyperfleetCalls: number;
}

/** One fleet size: the rotation and the daily resync, each as one batched execution. */
export interface RotationRow {
  readonly clusters: number;
  readonly managementClusters: number;
  /** Minutes from AddSecretVersion to the last management-cluster Secret, every cluster reached directly. */
  readonly minutesToAllSecrets: number;
  readonly targetMinutes: number | null;
  readonly meetsTarget: boolean | null;
  readonly minutesToLastTaskEnd: number;
  readonly tasks: number;
  readonly parallelism: number;
  readonly longestTaskMinutes: number;
  readonly runJobCalls: number;
  readonly calls: BatchOutcome['calls'];
  readonly busiestManagementClusterMinute: number;
  /** The same rotation with our local walls in place of the documented latencies. */
  readonly localCalibration: { minutesToAllSecrets: number; perCallMs: number };
  /** Every management cluster through Connect Gateway. */
  readonly connectGateway: {
    minutesToAllSecrets: number;
    meetsTarget: boolean | null;
    perTaskPerMinute: number;
    busiestMinute: number;
    longestTaskMinutes: number;
    /** With each task's share taken over the tasks running at once instead of all tasks. */
    minutesSharedByRunningTasks: number;
    /** Fleets (each its own quota) the clusters must be spread over to meet the target, at most 10. */
    fleetsForTarget: number | null;
  };
  /** The per-cluster design: one execution per cluster through the launch queue and RunJob. */
  readonly perClusterDesignMinutes: number;
  readonly resync: {
    executionsPerDay: number;
    perClusterDesignExecutionsPerDay: number;
    minutes: number;
    minutesConnectGateway: number;
    longestTaskMinutesConnectGateway: number;
    /** Billed task-seconds of the day's resync per cluster (1 vCPU, the job's memory). */
    taskSecondsPerCluster: number;
    tasks: number;
  };
  readonly parameters: RotationParameters & { rotationShape: CallShape; resyncShape: CallShape };
}

const minutes = (ms: number) => round(ms / 60_000, 2);
const callsOf = (shape: CallShape) => shape.secretManager + shape.kubernetes + shape.hyperfleet;

function runOf(job: readonly JobRunReference[], kind: string): JobRunReference {
  const run = job.find((j) => j.kind === kind);
  if (!run) throw new Error(`the job bench reference has no "${kind}" run (bench/reference.json)`);
  return run;
}

/**
 * Our local figures as latencies: the measured wall of a whole run (process start included, so
 * pessimistic) spread evenly over the calls of the shape it stands for.
 */
function localLatencies(
  wallMs: number,
  shape: CallShape,
  documented: CallLatencies,
): CallLatencies {
  const perCall = wallMs / callsOf(shape);
  return {
    secretManagerMs: perCall,
    kubernetesMs: perCall,
    connectGatewayExtraMs: documented.connectGatewayExtraMs,
    hyperfleetMs: perCall,
    listPageMs: perCall,
  };
}

/**
 * The per-cluster design's rotation: every cluster's launch queued at once, dispatched at the
 * launch queue's rate and accepted at the RunJob quota's; the last one's execution then starts
 * its container and runs one apply.
 */
function perClusterDesignMs(
  clusters: number,
  startMs: number,
  applyMs: number,
  p: RotationParameters,
): number {
  const queue = new TokenBucket(p.launchQueuePerMinute, 1, startMs);
  const runJob = new TokenBucket(p.runJobPerMinute, 1, startMs);
  let last = startMs;
  for (let i = 0; i < clusters; i++) last = runJob.take(queue.take(startMs));
  return last + p.dispatchMs + p.taskStartMs + applyMs;
}

/**
 * A rotation of the platform default at `clusters` clusters on `managementClusters`: the launch
 * path (notification, the adapter's one CreateTask, the dispatch and its RunJob under the quota),
 * then one batched execution, directly and through Connect Gateway; and the daily resync as one
 * batched execution from Cloud Scheduler.
 */
export function simulateRotation(
  clusters: number,
  managementClusters: number,
  job: readonly JobRunReference[],
  p: RotationParameters = DEFAULT_ROTATION_PARAMETERS,
): RotationRow {
  const changed = runOf(job, 'changed');
  const unchanged = runOf(job, 'unchanged');
  // A rotation applies the default without copying it to the tenant: the unchanged run's Secret
  // Manager calls (no version added), the changed run's Kubernetes write and cluster checks.
  const rotationShape: CallShape = {
    secretManager: unchanged.secretManagerCalls,
    kubernetes: changed.kubernetesCalls,
    hyperfleet: changed.hyperfleetCalls,
  };
  const resyncShape: CallShape = {
    secretManager: unchanged.secretManagerCalls,
    kubernetes: unchanged.kubernetesCalls,
    hyperfleet: unchanged.hyperfleetCalls,
  };
  const runJob = new TokenBucket(p.runJobPerMinute, 1, 0);
  const launched = p.notificationMs + p.adapterLaunchMs;
  const startMs = runJob.take(launched) + p.dispatchMs;
  const base: BatchInput = {
    clusters,
    managementClusters,
    reach: 'direct',
    shape: rotationShape,
    appliedShare: p.defaultShare,
    startMs,
    latencies: p.latencies,
  };
  const direct = simulateBatch(base, p);
  const local = localLatencies(changed.wallMsP50, rotationShape, p.latencies);
  const calibrated = simulateBatch({ ...base, latencies: local }, p);
  const gateway = simulateBatch({ ...base, reach: 'connect-gateway' }, p);
  const running = simulateBatch(
    { ...base, reach: 'connect-gateway' },
    { ...p, connectGatewayShare: 'running' },
  );
  const target = TARGET_MINUTES[clusters] ?? null;
  const meets = (ms: number) => (target === null ? null : minutes(ms) <= target);
  let fleetsForTarget: number | null = null;
  for (let fleets = 1; target !== null && fleetsForTarget === null && fleets <= 10; fleets++) {
    const share = simulateBatch(
      {
        ...base,
        reach: 'connect-gateway',
        clusters: Math.ceil(clusters / fleets),
        managementClusters: Math.ceil(managementClusters / fleets),
      },
      p,
    );
    if (minutes(share.lastSecretMs) <= target) fleetsForTarget = fleets;
  }
  const applyMs =
    rotationShape.secretManager * p.latencies.secretManagerMs +
    rotationShape.kubernetes * p.latencies.kubernetesMs +
    (1 + rotationShape.hyperfleet) * p.latencies.hyperfleetMs;

  const resyncInput: BatchInput = { ...base, shape: resyncShape, appliedShare: 1, startMs: 0 };
  const resync = simulateBatch(resyncInput, p);
  const resyncGateway = simulateBatch({ ...resyncInput, reach: 'connect-gateway' }, p);
  return {
    clusters,
    managementClusters,
    minutesToAllSecrets: minutes(direct.lastSecretMs),
    targetMinutes: target,
    meetsTarget: meets(direct.lastSecretMs),
    minutesToLastTaskEnd: minutes(direct.endMs),
    tasks: direct.tasks,
    parallelism: p.parallelism,
    longestTaskMinutes: minutes(direct.longestTaskMs),
    runJobCalls: 1,
    calls: direct.calls,
    busiestManagementClusterMinute: direct.busiestManagementClusterMinute,
    localCalibration: {
      minutesToAllSecrets: minutes(calibrated.lastSecretMs),
      perCallMs: round(local.secretManagerMs, 1),
    },
    connectGateway: {
      minutesToAllSecrets: minutes(gateway.lastSecretMs),
      meetsTarget: meets(gateway.lastSecretMs),
      perTaskPerMinute: round(gateway.perTaskPerMinute, 1),
      busiestMinute: gateway.busiestKubernetesMinute,
      longestTaskMinutes: minutes(gateway.longestTaskMs),
      minutesSharedByRunningTasks: minutes(running.lastSecretMs),
      fleetsForTarget,
    },
    perClusterDesignMinutes: minutes(perClusterDesignMs(clusters, launched, applyMs, p)),
    resync: {
      executionsPerDay: 1,
      perClusterDesignExecutionsPerDay: clusters,
      minutes: minutes(resync.endMs),
      minutesConnectGateway: minutes(resyncGateway.endMs),
      longestTaskMinutesConnectGateway: minutes(resyncGateway.longestTaskMs),
      taskSecondsPerCluster: round(resync.billedTaskSeconds / clusters, 4),
      tasks: resync.tasks,
    },
    parameters: { ...p, rotationShape, resyncShape },
  };
}
