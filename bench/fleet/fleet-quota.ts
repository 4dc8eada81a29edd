import { round } from '../stats';
import { busiestMinute, startFleet } from './fleet-stack';

/** A burst of new clusters through the launch queue under Cloud Run's RunJob quota, and what converging took. */
export interface BurstFigures {
  readonly clusters: number;
  /** Adapter instances the events were spread over. */
  readonly instances: number;
  /** The Cloud Run emulator's "Job run requests per minute per region" quota. */
  readonly quotaPerMinute: number;
  /** The launch queue's rate (Terraform's launch_queue.rate_per_minute). */
  readonly queueRatePerMinute: number;
  readonly converged: number;
  /** Simulated minutes from the clusters' creation until the last one converged. */
  readonly minutesToConverge: number | null;
  readonly executions: number;
  /** The most RunJob calls Cloud Run accepted in any 60 s. */
  readonly busiestMinute: number;
  /** RunJob calls Cloud Run refused with RESOURCE_EXHAUSTED (the queue retries them). */
  readonly runJobRefused: number;
  /** Attempts the queue dispatched (RunJob calls, refused ones included). */
  readonly dispatches: number;
  /** Deliveries to the adapter (Sentinel's events and Pub/Sub's redeliveries), and how many failed (redelivered). */
  readonly deliveries: number;
  readonly failedDeliveries: number;
  readonly wallSeconds: number;
}

/**
 * `count` clusters created at once, their events spread over `instances` adapter instances that
 * launch through one queue at `queueRatePerMinute`, against the Cloud Run emulator with its RunJob
 * quota on: steps (Sentinel's 5 s) until every cluster converged or `maxMinutes` passed.
 */
export async function simulateBurst(
  count: number,
  options: {
    quotaPerMinute: number;
    queueRatePerMinute: number;
    instances: number;
    maxMinutes?: number;
  },
  onProgress: (minutes: number, converged: number, wallSeconds: number) => void = () => undefined,
): Promise<BurstFigures> {
  const started = Date.now();
  const fleet = await startFleet(count, {
    runJobQuotaPerMinute: options.quotaPerMinute,
    queueRatePerMinute: options.queueRatePerMinute,
    instances: options.instances,
  });
  const start = fleet.clock.ms();
  const maxMs = (options.maxMinutes ?? 120) * 60_000;
  let converged = 0;
  let minutesToConverge: number | null = null;
  let reported = 0;
  try {
    while (fleet.clock.ms() - start < maxMs) {
      await fleet.step();
      converged = fleet.converged();
      const minutes = (fleet.clock.ms() - start) / 60_000;
      if (converged === count) {
        minutesToConverge = round(minutes, 2);
        break;
      }
      // Reads move the virtual clock within a step: report each whole minute once.
      if (Math.floor(minutes) > reported) {
        reported = Math.floor(minutes);
        onProgress(reported, converged, round((Date.now() - started) / 1000));
      }
    }
    const counters = fleet.counters();
    return {
      clusters: count,
      instances: options.instances,
      quotaPerMinute: options.quotaPerMinute,
      queueRatePerMinute: options.queueRatePerMinute,
      converged,
      minutesToConverge,
      executions: counters.executions,
      busiestMinute: busiestMinute(fleet.runJobAccepted),
      runJobRefused: counters.runJobRefused,
      dispatches: counters.dispatches,
      deliveries: counters.delivered,
      failedDeliveries: counters.failedDeliveries,
      wallSeconds: round((Date.now() - started) / 1000),
    };
  } finally {
    await fleet.stop();
  }
}

/** A fleet over days at the adapter's default settings: what it costs per cluster and day. */
export interface DaysFigures {
  readonly clusters: number;
  readonly days: number;
  readonly stepSeconds: number;
  /** The adapter's default resync and the launch queue's default rate (Terraform's) the run used. */
  readonly resyncInterval: string;
  readonly queueRatePerMinute: number;
  readonly converged: number;
  readonly executions: number;
  /** Every execution (onboarding included) per cluster per simulated day. */
  readonly executionsPerClusterPerDay: number;
  /** After the first day (onboarding over): the steady state. */
  readonly steadyExecutionsPerClusterPerDay: number;
  readonly eventsPerClusterPerDay: number;
  readonly busiestMinute: number;
  readonly wallSeconds: number;
}

/**
 * `count` new clusters run for `days` simulated days at the adapter's defaults (loadAdapterConfig
 * with nothing set) and Terraform's launch queue, one adapter instance, with steps of `stepMs` (Sentinel's re-sends, 10 s until reconciled and 30 min
 * after, are kept to the step).
 */
export async function simulateDays(
  count: number,
  days = 2,
  stepMs = 30_000,
  onProgress: (hours: number, wallSeconds: number) => void = () => undefined,
): Promise<DaysFigures> {
  const started = Date.now();
  const fleet = await startFleet(count);
  const start = fleet.clock.ms();
  const dayMs = 24 * 3_600_000;
  let afterFirstDay: ReturnType<typeof fleet.counters> | undefined;
  try {
    while (fleet.clock.ms() - start < days * dayMs) {
      await fleet.step(stepMs);
      const elapsed = fleet.clock.ms() - start;
      if (elapsed % (6 * 3_600_000) < stepMs) {
        onProgress(Math.round(elapsed / 3_600_000), round((Date.now() - started) / 1000));
        if (!afterFirstDay && elapsed >= dayMs) afterFirstDay = fleet.counters();
      }
    }
    const end = fleet.counters();
    const first = afterFirstDay ?? end;
    const decision = fleet.defaults.decision;
    return {
      clusters: count,
      days,
      stepSeconds: stepMs / 1000,
      resyncInterval: `${round(decision.resyncIntervalMs / 3_600_000, 2)}h`,
      queueRatePerMinute: fleet.queueRatePerMinute,
      converged: fleet.converged(),
      executions: end.executions,
      executionsPerClusterPerDay: round(end.executions / count / days, 3),
      steadyExecutionsPerClusterPerDay:
        days > 1 ? round((end.executions - first.executions) / count / (days - 1), 3) : 0,
      eventsPerClusterPerDay: round(end.delivered / count / days, 1),
      busiestMinute: busiestMinute(fleet.runJobAccepted),
      wallSeconds: round((Date.now() - started) / 1000),
    };
  } finally {
    await fleet.stop();
  }
}
