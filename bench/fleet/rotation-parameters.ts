// The figures the rotation simulation (rotation-sim.ts) is built on, each named with its source.
// Google publishes quotas, not latencies: a latency here is a typical figure, taken from the upper
// half of what is commonly measured in-region, and the simulation is rerun with our own local
// measurements (the job bench) in their place, so that neither stands alone.

import {
  CONNECT_GATEWAY_HEADROOM,
  CONNECT_GATEWAY_REQUESTS_PER_MINUTE,
} from '../../functions/pull-secret-job/batch/connect-gateway-pacing';

/** Per-call latencies (ms) of one apply's calls. */
export interface CallLatencies {
  /** One Secret Manager call (GetSecret, UpdateSecret, AccessSecretVersion). */
  readonly secretManagerMs: number;
  /** One Kubernetes API call to a GKE control plane reached directly (its endpoint and CA). */
  readonly kubernetesMs: number;
  /** What Connect Gateway adds to a Kubernetes call (Google's proxy, then the Connect agent's tunnel). */
  readonly connectGatewayExtraMs: number;
  /** One HyperFleet API call (a cluster's statuses, the job's cluster check). */
  readonly hyperfleetMs: number;
  /** One page of the HyperFleet API's cluster list (`pageSize` clusters). */
  readonly listPageMs: number;
}

/**
 * Typical in-region latencies, not published by Google (no latency SLO exists for these APIs):
 * Secret Manager 30–60 ms a call, a GKE control plane 20–50 ms, Connect Gateway 50–100 ms more
 * (an extra proxy and the agent's tunnel), the HyperFleet API ~20 ms (a REST service next to its
 * database). Each is the middle of its range; `localLatencies` replaces them with ours.
 */
export const DOCUMENTED_LATENCIES: CallLatencies = {
  secretManagerMs: 45,
  kubernetesMs: 35,
  connectGatewayExtraMs: 75,
  hyperfleetMs: 20,
  listPageMs: 60,
};

/** The calls one cluster's apply makes, by API (the job bench's "calls per run"). */
export interface CallShape {
  readonly secretManager: number;
  readonly kubernetes: number;
  /** The job's own HyperFleet calls (the cluster check around the writes), not the task's status read. */
  readonly hyperfleet: number;
}

/** The Cloud Run and quota settings of a batched execution, and the launch path before it. */
export interface RotationParameters {
  readonly latencies: CallLatencies;
  /**
   * Clusters a task takes (BATCH_CLUSTERS_PER_TASK): taskCount = ceil(clusters / this), at most
   * `maxTasks`. 500 keeps a task's work near a minute directly reached, so a failed task retried
   * by Cloud Run repeats little, and the container start is shared by enough clusters to vanish.
   */
  readonly clustersPerTask: number;
  /** Cloud Run's "Maximum number of tasks in a single job": 10,000, cannot be increased (https://cloud.google.com/run/quotas). */
  readonly maxTasks: number;
  /**
   * Tasks of one execution running at once. The job's `parallelism` is 0, "the maximum possible"
   * (job.tf: it may not exceed the job's own task count of 1, and RunJob cannot override it), and
   * Cloud Run's "Maximum number of tasks running in parallel" per execution "depends on region and
   * CPU and memory" (https://cloud.google.com/run/quotas; the page used to give 200 at 1 CPU and
   * 2 GiB): 200. The HyperFleet API then sees up to parallelism × taskConcurrency (800) requests
   * in flight.
   */
  readonly parallelism: number;
  /** Clusters a task applies at once, in its one process (C). */
  readonly taskConcurrency: number;
  /** The HyperFleet API's list page size; task i of T reads pages i, i+T, i+2T, … */
  readonly pageSize: number;
  /**
   * One task's container start to its first call: the cost model's `jobStartSeconds`
   * (scripts/cost-model.cjs, 10 s, "taken high": not measured on Google Cloud); the local
   * bench's whole unchanged run, start included, is under 0.4 s.
   */
  readonly taskStartMs: number;
  /**
   * From AddSecretVersion to the adapter's handler: Secret Manager's SECRET_VERSION_ADD to
   * Pub/Sub, then a push (Google gives no delivery latency for either; taken high).
   */
  readonly notificationMs: number;
  /** The adapter's CreateTask of the one launch: the adapter bench's launch p50 (reference run). */
  readonly adapterLaunchMs: number;
  /** Cloud Tasks' dispatch of a task due now, and the RunJob call it makes (taken high). */
  readonly dispatchMs: number;
  /** Cloud Run's "Job run requests per minute per region": not published, 180 recorded by third parties. */
  readonly runJobPerMinute: number;
  /** Terraform's `launch_queue.rate_per_minute` (the per-cluster design's launch rate). */
  readonly launchQueuePerMinute: number;
  /**
   * Connect Gateway: "2,400 requests per minute per fleet", on the fleet host project
   * (https://cloud.google.com/kubernetes-engine/enterprise/multicluster-management/gateway/quotas):
   * the job's default (CONNECT_GATEWAY_REQUESTS_PER_MINUTE), one constant for both.
   */
  readonly connectGatewayPerMinute: number;
  /**
   * The share of that quota the tasks pace themselves to (0.95): the rest absorbs each task's
   * first token and an operator's kubectl through the same gateway, so the busiest 60 s stays
   * under the quota. The job's own constant (batch/connect-gateway-pacing.ts).
   */
  readonly connectGatewayHeadroom: number;
  /**
   * How a task learns its share of the gateway: 'tasks' (the design: quota / taskCount, which a
   * task computes from CLOUD_RUN_TASK_COUNT) or 'running' (quota / min(taskCount, parallelism),
   * which needs the parallelism passed to the job too).
   */
  readonly connectGatewayShare: 'tasks' | 'running';
  /** Share of clusters on the platform default (the rotation's work): all of them, the worst case. */
  readonly defaultShare: number;
}

export const DEFAULT_ROTATION_PARAMETERS: RotationParameters = {
  latencies: DOCUMENTED_LATENCIES,
  clustersPerTask: 500,
  maxTasks: 10_000,
  parallelism: 200,
  taskConcurrency: 4,
  pageSize: 100,
  taskStartMs: 10_000,
  notificationMs: 5_000,
  adapterLaunchMs: 5,
  dispatchMs: 2_000,
  runJobPerMinute: 180,
  launchQueuePerMinute: 120,
  connectGatewayPerMinute: CONNECT_GATEWAY_REQUESTS_PER_MINUTE,
  connectGatewayHeadroom: CONNECT_GATEWAY_HEADROOM,
  connectGatewayShare: 'tasks',
  defaultShare: 1,
};

/** The targets: minutes from the new version to the last management-cluster Secret. */
export const TARGET_MINUTES: Readonly<Record<number, number>> = { 10_000: 10, 100_000: 30 };
/** The bound on the periodic resync's executions a day at 100,000 clusters. */
export const RESYNC_EXECUTIONS_PER_DAY_BOUND = 1_000;
