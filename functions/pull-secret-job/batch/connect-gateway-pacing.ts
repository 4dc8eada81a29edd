import { TokenBucket } from './token-bucket';
import type { Logger } from '../../../shared/logging/logger';
import { positiveIntWithDefault } from '../../../shared/config/durations';
import { sleep as realSleep } from '../../../shared/sleep';
import { isConnectGatewayEndpoint } from '../config/management-clusters';
import type { KubernetesAccess } from '../kubernetes/kubernetes-access';

// A batch task's Kubernetes calls to management clusters reached through Connect Gateway, paced to
// the task's share of the fleet's gateway quota: "the connect gateway limits usage to 2,400
// requests per minute per fleet", applied to the fleet host project whatever projects the
// clusters are in (https://cloud.google.com/kubernetes-engine/enterprise/multicluster-management/gateway/quotas).
// A rotation's tasks together would otherwise send thousands a minute through it, and the
// gateway's refusals would turn into failed applies. Each task takes quota × headroom ÷
// CLOUD_RUN_TASK_COUNT, which it knows without talking to the other tasks; the bench simulates
// exactly this (bench/fleet/rotation-parameters.ts takes its figures from here). Clusters reached
// directly (a GKE endpoint, a kubeconfig) are not paced: GKE's control plane has no such quota.

/** Connect Gateway's documented quota per fleet host project, a minute (CONNECT_GATEWAY_REQUESTS_PER_MINUTE). */
export const CONNECT_GATEWAY_REQUESTS_PER_MINUTE = 2_400;

/** CONNECT_GATEWAY_REQUESTS_PER_MINUTE: the granted quota, after an increase. */
export const connectGatewayQuotaVariable = positiveIntWithDefault(
  CONNECT_GATEWAY_REQUESTS_PER_MINUTE,
);

/**
 * The share of the quota the tasks pace themselves to: the rest absorbs the buckets' bursts and
 * an operator's kubectl through the same gateway, so the busiest 60 s stays under the quota.
 */
export const CONNECT_GATEWAY_HEADROOM = 0.95;

/**
 * A task's burst, in seconds of its rate. All tasks' bursts together are then 3 s of the paced
 * rate, so the busiest minute is at most 0.95 × 63/60 = 99.75 % of the quota.
 */
export const PACING_BURST_SECONDS = 3;

/**
 * The Kubernetes calls one cluster's apply makes: the dry-run read, and the write when the Secret
 * changes (the job bench's changed run). Taken before the cluster runs; an unchanged cluster
 * makes one, so the task stays under its share either way.
 */
export const KUBERNETES_CALLS_PER_CLUSTER = 2;

/** How one task paces: its share of the quota and its bucket's size. */
export interface TaskPacing {
  readonly perTaskPerMinute: number;
  readonly burst: number;
}

/** The share of `quotaPerMinute` each of `taskCount` tasks takes, and its burst. */
export function taskPacing(quotaPerMinute: number, taskCount: number): TaskPacing {
  const perTaskPerMinute = (quotaPerMinute * CONNECT_GATEWAY_HEADROOM) / taskCount;
  return { perTaskPerMinute, burst: (perTaskPerMinute / 60) * PACING_BURST_SECONDS };
}

/** The calls to pace before a cluster runs: its apply's calls when its management cluster is behind Connect Gateway. */
export function callsToPace(access: KubernetesAccess | undefined): number {
  return access?.kind === 'google' && isConnectGatewayEndpoint(access.endpoint)
    ? KUBERNETES_CALLS_PER_CLUSTER
    : 0;
}

/** The clock a pacer waits on; tests pass a fake one. */
export interface PacingClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const REAL_CLOCK: PacingClock = { now: () => Date.now(), sleep: realSleep };

/**
 * One task's bucket for Connect Gateway calls, shared by its concurrent clusters: each reserves
 * its calls in turn and waits until the bucket has refilled them.
 */
export class ConnectGatewayPacer {
  private readonly bucket: TokenBucket;
  private waited = 0;

  constructor(
    readonly pacing: TaskPacing,
    private readonly clock: PacingClock = REAL_CLOCK,
  ) {
    this.bucket = new TokenBucket(pacing.perTaskPerMinute / 60, pacing.burst, clock.now());
  }

  /** Waits until the cluster's Kubernetes calls fit the task's share; returns the ms waited. */
  async before(access: KubernetesAccess | undefined): Promise<number> {
    const calls = callsToPace(access);
    if (calls === 0) return 0;
    const waitMs = this.bucket.reserve(calls, this.clock.now());
    if (waitMs > 0) {
      this.waited += waitMs;
      await this.clock.sleep(waitMs);
    }
    return waitMs;
  }

  /** Total ms this task's clusters waited for tokens (`paced_ms` in `batch-finished`). */
  get pacedMs(): number {
    return this.waited;
  }
}

/**
 * A batch task's pacer, logged once (`batch-pacing`): how fast it lets its clusters behind
 * Connect Gateway go, from the quota (CONNECT_GATEWAY_REQUESTS_PER_MINUTE) and CLOUD_RUN_TASK_COUNT.
 */
export function taskPacer(
  quotaPerMinute: number,
  task: { readonly task_index: number; readonly task_count: number },
  logger: Logger,
): ConnectGatewayPacer {
  const pacing = taskPacing(quotaPerMinute, task.task_count);
  logger.info(
    `Batch task ${task.task_index + 1} of ${task.task_count}: paces clusters behind Connect Gateway to ${pacing.perTaskPerMinute.toFixed(1)} Kubernetes calls a minute (${CONNECT_GATEWAY_HEADROOM * 100} % of ${quotaPerMinute} over ${task.task_count} tasks); direct endpoints are not paced`,
    {
      event: 'batch-pacing',
      ...task,
      connect_gateway_per_minute: quotaPerMinute,
      per_task_per_minute: pacing.perTaskPerMinute,
      burst: pacing.burst,
    },
  );
  return new ConnectGatewayPacer(pacing);
}
