import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCloudRunEmulator } from '../emulators/cloud-run/server';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../emulators/hyperfleet-api/server';
import { LOCAL_SIMULATED_ADAPTERS } from '../emulators/pullsecret/hyperfleet/simulated-adapters';
import { buildStatus } from '../shared/status/status-builder';
import { measureNodeProcess } from './measure-process';
import { round } from './stats';

export const JOB = 'projects/demo-bench/locations/local/jobs/pullsecret-job';
/** The adapter's LAUNCH_SETTLE_INTERVAL default (functions/adapter/config/config.ts). */
const DEFAULT_SETTLE = '1s';
const WORKER = path.join(__dirname, 'adapter-worker.js');
export const SPEC = {
  platform: { type: 'gcp', gcp: { projectID: 'demo-customer-project' } },
  pullSecret: {
    data: JSON.stringify({
      auths: { 'quay.io': { auth: Buffer.from('bench:bench-password').toString('base64') } },
    }),
  },
};

export type AdapterScenario = 'up-to-date' | 'not-met' | 'launch';

export interface AdapterFigures {
  readonly scenario: AdapterScenario;
  /** LAUNCH_SETTLE_INTERVAL of the run: launches wait it once; other scenarios never do. */
  readonly launchSettle: string;
  readonly concurrency: number;
  readonly events: number;
  readonly eventsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly peakRssMb: number;
  readonly hyperfleetCallsPerEvent: number;
  readonly cloudRunCallsPerEvent: number;
}

let seeded = 0;
/** Clusters in the state a scenario needs, seeded straight into the emulator's store. */
export function seed(
  api: HyperFleetApiEmulator,
  scenario: AdapterScenario,
  count: number,
): string[] {
  return Array.from({ length: count }, () => {
    const name = `bench-${scenario}-${seeded++}`;
    if (scenario === 'not-met') api.store.holdForNewCluster(name, 'dns', 'False');
    const { id } = api.store.createCluster({ kind: 'Cluster', name, spec: SPEC }, 'bench') as {
      id: string;
    };
    if (scenario === 'up-to-date') {
      api.store.putStatus(
        id,
        buildStatus(
          {
            kind: 'succeeded',
            execution: `${JOB}/executions/seed`,
            provisioned: { secretPath: 'projects/p/secrets/s', secretVersion: '1' },
            timing: { completedAt: new Date().toISOString() },
          },
          1,
          new Date(),
        ),
      );
    }
    return id;
  });
}

/** The HyperFleet and Cloud Run emulators an adapter is measured against (also bench/telemetry-volume.ts). */
export async function startAdapterEmulators() {
  const hyperfleet = await startHyperFleetApiEmulator({
    simulatedAdapters: LOCAL_SIMULATED_ADAPTERS,
    requiredAdapters: ['validation', 'dns', 'placement', 'pullsecret'],
  });
  const cloudRun = await startCloudRunEmulator({
    jobs: [{ name: JOB, command: ['/bin/true'], maxRetries: 0 }],
    // The execution does nothing, in this process: a real RunJob returns at once and the job runs
    // elsewhere, while a process spawned per execution (fork of this 200 MB process) capped the
    // launch scenario at about 170 events/s, measuring the emulator rather than the adapter.
    inProcessTasks: { [JOB]: () => Promise.resolve(0) },
  });
  return { hyperfleet, cloudRun };
}

/**
 * Events per second and p50/p99 latency of the real adapter handler for up-to-date clusters,
 * clusters whose preconditions are not met, and launches, at concurrency 1 and 50, with the calls
 * each event costs at the HyperFleet and Cloud Run emulators.
 */
export async function benchAdapter(eventsPerRun: number): Promise<AdapterFigures[]> {
  const { hyperfleet, cloudRun } = await startAdapterEmulators();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adapter-bench-'));
  const figures: AdapterFigures[] = [];
  try {
    // Launches twice: without the settle wait (the adapter's own cost, as before issue 28) and with
    // the default wait, which every launch pays once; up-to-date and not-met events never wait.
    const runs: { scenario: AdapterScenario; settle: string }[] = [
      { scenario: 'up-to-date', settle: DEFAULT_SETTLE },
      { scenario: 'not-met', settle: DEFAULT_SETTLE },
      { scenario: 'launch', settle: '0s' },
      { scenario: 'launch', settle: DEFAULT_SETTLE },
    ];
    for (const { scenario, settle } of runs) {
      for (const concurrency of [1, 50]) {
        // A settled launch takes the settle interval: fewer events keep the run short.
        const events =
          settle === '0s' || scenario !== 'launch' ? eventsPerRun : Math.max(20, concurrency * 4);
        // Up-to-date clusters can be hit again and again; the others change state on their first event.
        const ids = seed(hyperfleet, scenario, scenario === 'up-to-date' ? 100 : events);
        const idsFile = path.join(dir, `${scenario}-${concurrency}.json`);
        fs.writeFileSync(idsFile, JSON.stringify(ids));
        const hyperfleetBefore = hyperfleet.requests.list().length;
        const cloudRunBefore = cloudRun.requests.list().length;
        const run = await measureNodeProcess(WORKER, [], {
          PATH: process.env.PATH,
          METADATA_SERVER_DETECTION: 'none',
          BENCH_IDS: idsFile,
          BENCH_EVENTS: String(events),
          BENCH_LAUNCH_SETTLE: settle,
          BENCH_CONCURRENCY: String(concurrency),
          BENCH_HYPERFLEET: hyperfleet.baseUrl,
          BENCH_CLOUD_RUN: cloudRun.endpoint,
          BENCH_JOB: JOB,
        });
        if (run.code !== 0) throw new Error(`adapter worker failed (${run.code}): ${run.stdout}`);
        const result = JSON.parse(run.stdout.trim().split('\n').pop()!) as {
          events: number;
          eventsPerSecond: number;
          p50Ms: number;
          p99Ms: number;
        };
        figures.push({
          scenario,
          launchSettle: settle,
          concurrency,
          events: result.events,
          eventsPerSecond: round(result.eventsPerSecond),
          p50Ms: round(result.p50Ms, 2),
          p99Ms: round(result.p99Ms, 2),
          peakRssMb: round(run.maxRssMb),
          hyperfleetCallsPerEvent: round(
            (hyperfleet.requests.list().length - hyperfleetBefore) / result.events,
            2,
          ),
          cloudRunCallsPerEvent: round(
            (cloudRun.requests.list().length - cloudRunBefore) / result.events,
            2,
          ),
        });
      }
    }
  } finally {
    await cloudRun.stop();
    await hyperfleet.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}
