import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCloudRunEmulator } from '../emulators/cloud-run/server';
import { startCloudTasksEmulator } from '../emulators/cloud-tasks/server';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../emulators/hyperfleet-api/server';
import { LOCAL_SIMULATED_ADAPTERS } from '../emulators/pullsecret/hyperfleet/simulated-adapters';
import { buildStatus } from '../shared/status/status-builder';
import { measureNodeProcess } from './measure-process';
import { round } from './stats';

export const JOB = 'projects/demo-bench/locations/local/jobs/pullsecret-job';
const LAUNCH_QUEUE = 'projects/demo-bench/locations/local/queues/pullsecret-launches';
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
  readonly concurrency: number;
  readonly events: number;
  readonly eventsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly peakRssMb: number;
  readonly hyperfleetCallsPerEvent: number;
  /** The adapter's calls to Cloud Tasks (CreateTask; GetTask and DeleteTask off the happy path). */
  readonly cloudTasksCallsPerEvent: number;
  /** Calls Cloud Run received: the adapter's own, and the RunJob the queue dispatched for a launch. */
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

/**
 * The HyperFleet, Cloud Tasks and Cloud Run emulators an adapter is measured against (also
 * bench/telemetry-volume.ts), and the adapter env that points at them. The launch queue dispatches
 * by itself, as fast as Cloud Tasks allows (500 a second): the bench measures the adapter, whose
 * launch ends once the task is created, not the fleet's launch rate (the fleet-burst section does).
 */
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
  const cloudTasks = await startCloudTasksEmulator({
    queues: [
      {
        name: LAUNCH_QUEUE,
        rateLimits: { maxDispatchesPerSecond: 500, maxConcurrentDispatches: 1000 },
      },
    ],
  });
  const adapterEnv = {
    PULL_SECRET_JOB: JOB,
    LAUNCH_QUEUE,
    LAUNCHER_SERVICE_ACCOUNT: 'pullsecret-launcher@demo-bench.iam.gserviceaccount.com',
    CLOUD_TASKS_EMULATOR_HOST: cloudTasks.endpoint,
    CLOUD_RUN_API_ENDPOINT: cloudRun.apiUrl,
    CLOUD_RUN_EMULATOR_HOST: cloudRun.endpoint,
  };
  const stop = async () => {
    await cloudTasks.stop();
    await cloudRun.stop();
    await hyperfleet.stop();
  };
  return { hyperfleet, cloudRun, cloudTasks, adapterEnv, stop };
}

/** Until the queue has dispatched every task (RunJob answered), or `timeoutMs` passed. */
async function drained(
  cloudTasks: Awaited<ReturnType<typeof startAdapterEmulators>>['cloudTasks'],
  timeoutMs = 60_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (cloudTasks.book.tasks.size > 0 && Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 20));
  await cloudTasks.idle();
}

/**
 * Events per second and p50/p99 latency of the real adapter handler for up-to-date clusters,
 * clusters whose preconditions are not met, and launches (a named task in the Cloud Tasks queue,
 * no wait), at concurrency 1 and 50, with the calls each event costs at the HyperFleet, Cloud
 * Tasks and Cloud Run emulators.
 */
export async function benchAdapter(eventsPerRun: number): Promise<AdapterFigures[]> {
  const emulators = await startAdapterEmulators();
  const { hyperfleet, cloudRun, cloudTasks } = emulators;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adapter-bench-'));
  const figures: AdapterFigures[] = [];
  /** The adapter's RPCs; the queue's dispatches are logged beside them as `Dispatch`. */
  const tasksCalls = () => cloudTasks.requests.list().filter((r) => r.method !== 'Dispatch').length;
  try {
    for (const scenario of ['up-to-date', 'not-met', 'launch'] as const) {
      for (const concurrency of [1, 50]) {
        const events = eventsPerRun;
        // Up-to-date clusters can be hit again and again; the others change state on their first event.
        const ids = seed(hyperfleet, scenario, scenario === 'up-to-date' ? 100 : events);
        const idsFile = path.join(dir, `${scenario}-${concurrency}.json`);
        fs.writeFileSync(idsFile, JSON.stringify(ids));
        const hyperfleetBefore = hyperfleet.requests.list().length;
        const cloudTasksBefore = tasksCalls();
        const cloudRunBefore = cloudRun.requests.list().length;
        const run = await measureNodeProcess(WORKER, [], {
          PATH: process.env.PATH,
          METADATA_SERVER_DETECTION: 'none',
          BENCH_IDS: idsFile,
          BENCH_EVENTS: String(events),
          BENCH_CONCURRENCY: String(concurrency),
          BENCH_HYPERFLEET: hyperfleet.baseUrl,
          BENCH_ADAPTER_ENV: JSON.stringify(emulators.adapterEnv),
        });
        if (run.code !== 0) throw new Error(`adapter worker failed (${run.code}): ${run.stdout}`);
        // The RunJob of each launch counts too: the queue sends it after the worker is done.
        await drained(cloudTasks);
        const result = JSON.parse(run.stdout.trim().split('\n').pop()!) as {
          events: number;
          eventsPerSecond: number;
          p50Ms: number;
          p99Ms: number;
        };
        figures.push({
          scenario,
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
          cloudTasksCallsPerEvent: round((tasksCalls() - cloudTasksBefore) / result.events, 2),
          cloudRunCallsPerEvent: round(
            (cloudRun.requests.list().length - cloudRunBefore) / result.events,
            2,
          ),
        });
      }
    }
  } finally {
    await emulators.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}
