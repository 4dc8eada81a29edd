import { round } from '../stats';
import { startFleet, STEP_MS } from './fleet-stack';

const HOUR_MS = 3_600_000;

/** What one simulated hour cost, in totals and per cluster. */
export interface FleetRunFigures {
  readonly name: string;
  readonly eventsDelivered: number;
  readonly executions: number;
  readonly secretManagerVersions: number;
  readonly kubernetesWrites: number;
  /** Calls by the adapter, the job and the reporter (Sentinel's polling is counted apart). */
  readonly hyperfleetCalls: number;
  readonly sentinelListCalls: number;
  readonly converged: number;
  readonly perCluster: {
    events: number;
    executions: number;
    versions: number;
    kubernetesWrites: number;
    hyperfleetCalls: number;
    /** Every Secret Manager call (job and reporter), and every Cloud Run Admin API call (adapter, reporter). */
    secretManagerCalls: number;
    cloudRunCalls: number;
  };
  readonly wallSeconds: number;
}

export interface FleetFigures {
  readonly clusters: number;
  readonly changedClusters: number;
  readonly runs: readonly FleetRunFigures[];
  /** The original design launched a job for every event (per generation) and added a version on every run. */
  readonly originalDesign: {
    jobRunsUpTo: number;
    versionsUpTo: number;
    executionsRatio: number;
    versionsRatio: number;
  };
}

/**
 * A fleet of `count` clusters for two simulated hours (fleet-stack.ts: Sentinel's rules, the real
 * adapter, job and reporter code against the emulators, a virtual clock), adapter defaults: the
 * first hour creates every cluster, the second changes the pull secret of `changedFraction`.
 */
export async function simulateFleet(
  count: number,
  changedFraction = 0.05,
  /** Told every 10 simulated minutes (hour from 1, minutes into it, wall seconds since the hour began). */
  onProgress: (hour: number, minutes: number, wallSeconds: number) => void = () => undefined,
): Promise<FleetFigures> {
  const fleet = await startFleet(count);

  /** One simulated hour: Sentinel ticks every 5 s; events go to the adapter, 25 at a time; executions finish within the step. */
  const simulateHour = async (hour: number, name: string): Promise<FleetRunFigures> => {
    const started = Date.now();
    const before = fleet.counters();
    for (let elapsed = 0; elapsed < HOUR_MS; elapsed += STEP_MS) {
      if (elapsed > 0 && elapsed % (10 * 60_000) === 0)
        onProgress(hour, elapsed / 60_000, round((Date.now() - started) / 1000));
      await fleet.step();
    }
    const after = fleet.counters();
    const totals = {
      executions: after.executions - before.executions,
      versions: after.versions - before.versions,
      kubeWrites: after.kubeWrites - before.kubeWrites,
      hyperfleetCalls: after.hyperfleetCalls - before.hyperfleetCalls,
      sentinel: after.sentinelCalls - before.sentinelCalls,
      events: after.delivered - before.delivered,
      secretManagerCalls: after.secretManagerCalls - before.secretManagerCalls,
      cloudRunCalls: after.cloudRunCalls - before.cloudRunCalls,
    };
    return {
      name,
      eventsDelivered: totals.events,
      executions: totals.executions,
      secretManagerVersions: totals.versions,
      kubernetesWrites: totals.kubeWrites,
      hyperfleetCalls: totals.hyperfleetCalls,
      sentinelListCalls: totals.sentinel,
      converged: fleet.converged(),
      perCluster: {
        events: round(totals.events / count, 2),
        executions: round(totals.executions / count, 3),
        versions: round(totals.versions / count, 3),
        kubernetesWrites: round(totals.kubeWrites / count, 3),
        hyperfleetCalls: round(totals.hyperfleetCalls / count, 1),
        secretManagerCalls: round(totals.secretManagerCalls / count, 2),
        cloudRunCalls: round(totals.cloudRunCalls / count, 2),
      },
      wallSeconds: round((Date.now() - started) / 1000),
    };
  };

  try {
    const first = await simulateHour(1, `hour 1: ${count} new clusters`);
    const changed = fleet.ids.slice(0, Math.round(count * changedFraction));
    for (const [i, id] of changed.entries()) fleet.changePullSecret(id, 100_000 + i);
    const second = await simulateHour(
      2,
      `hour 2: ${changed.length} clusters change their pull secret`,
    );
    const events = first.eventsDelivered + second.eventsDelivered;
    const executions = first.executions + second.executions;
    const versions = first.secretManagerVersions + second.secretManagerVersions;
    return {
      clusters: count,
      changedClusters: changed.length,
      runs: [first, second],
      originalDesign: {
        jobRunsUpTo: events,
        versionsUpTo: events,
        executionsRatio: round(events / Math.max(1, executions), 1),
        versionsRatio: round(events / Math.max(1, versions), 1),
      },
    };
  } finally {
    await fleet.stop();
  }
}
