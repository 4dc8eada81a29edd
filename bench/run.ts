// `npm run bench`: measures what the system costs and writes bench/results/latest.json.
// Sections (BENCH_SECTIONS, comma-separated; default all): job, adapter, cold, e2e, fleet.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchAdapter } from './adapter-bench';
import { benchColdStart } from './cold-start';
import { benchEndToEnd } from './e2e-bench';
import { simulateFleet } from './fleet/fleet-sim';
import { benchJobRuns } from './job-bench';

/** One benchmark: how to measure it and how to print its figures. */
interface SectionOf<T> {
  readonly name: string;
  readonly key: string;
  readonly measure: () => Promise<T>;
  readonly title: (figures: T) => string;
  readonly rows: (figures: T) => Record<string, unknown>[];
  readonly after?: (figures: T) => void;
}
/** A section with its figure type closed over: measures, prints, returns the figures. */
interface Section {
  readonly name: string;
  readonly key: string;
  readonly run: () => Promise<unknown>;
}

function section<T>(s: SectionOf<T>): Section {
  return {
    name: s.name,
    key: s.key,
    run: async () => {
      const figures = await s.measure();
      console.log(`\n${s.title(figures)}`);
      console.table(s.rows(figures));
      s.after?.(figures);
      return figures;
    },
  };
}

async function main(): Promise<void> {
  process.env.METADATA_SERVER_DETECTION = 'none';
  const sections = new Set((process.env.BENCH_SECTIONS ?? 'job,adapter,cold,e2e,fleet').split(','));
  const machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
  };
  process.stderr.write(
    `Benchmarking on ${machine.cpus} x ${machine.cpuModel}, ${machine.memoryGb} GiB, Node ${machine.node}\n`,
  );
  const results: Record<string, unknown> = { measuredAt: new Date().toISOString(), machine };

  // Each section measures, keeps its figures under `key` in latest.json and prints one table.
  const all: Section[] = [
    section({
      name: 'job',
      key: 'job',
      measure: () => benchJobRuns(Number(process.env.BENCH_JOB_RUNS ?? 10)),
      title: () =>
        'Pull secret job: one process per run, against the Secret Manager and Kubernetes emulators',
      rows: (job) =>
        job.map((j) => ({
          run: j.kind,
          runs: j.runs,
          'wall p50 ms': j.wallMsP50,
          'wall p90 ms': j.wallMsP90,
          'peak RSS MB': j.maxRssMb,
          'SM calls': j.secretManagerCalls,
          'K8s calls': j.kubernetesCalls,
        })),
    }),
    section({
      name: 'adapter',
      key: 'adapter',
      measure: () => benchAdapter(Number(process.env.BENCH_ADAPTER_EVENTS ?? 300)),
      title: () =>
        'Adapter handler: real handler in its own process, HyperFleet (HTTP) and Cloud Run (gRPC) emulators',
      rows: (adapter) =>
        adapter.map((a) => ({
          scenario: a.scenario,
          concurrency: a.concurrency,
          events: a.events,
          'events/s': a.eventsPerSecond,
          'p50 ms': a.p50Ms,
          'p99 ms': a.p99Ms,
          'peak RSS MB': a.peakRssMb,
          'HyperFleet calls/event': a.hyperfleetCallsPerEvent,
          'Cloud Run calls/event': a.cloudRunCallsPerEvent,
        })),
    }),
    section({
      name: 'cold',
      key: 'coldStart',
      measure: () => benchColdStart(Number(process.env.BENCH_COLD_RUNS ?? 5)),
      title: () =>
        'Function cold start: a fresh process loads the module, then handles a first event',
      rows: (cold) =>
        cold.map((c) => ({
          function: c.module,
          'module load p50 ms': c.loadMsP50,
          'first event p50 ms': c.firstEventMsP50,
          'process p50 ms': c.processMsP50,
          'peak RSS MB': c.peakRssMb,
        })),
    }),
    section({
      name: 'e2e',
      key: 'endToEnd',
      measure: () => benchEndToEnd(Number(process.env.BENCH_E2E_CLUSTERS ?? 20)),
      title: (e2e) =>
        `End to end on the local stack (${e2e.sentinel}): creation -> PullsecretSuccessful=True`,
      rows: (e2e) => [
        { clusters: e2e.clusters, 'p50 ms': e2e.p50Ms, 'p90 ms': e2e.p90Ms, 'max ms': e2e.maxMs },
      ],
    }),
    section({
      name: 'fleet',
      key: 'fleet',
      measure: () => simulateFleet(Number(process.env.BENCH_FLEET_CLUSTERS ?? 1000)),
      title: (fleet) =>
        `Fleet simulation: ${fleet.clusters} clusters, Sentinel's rules, two simulated hours`,
      rows: (fleet) =>
        fleet.runs.map((r) => ({
          run: r.name,
          events: r.eventsDelivered,
          executions: r.executions,
          'SM versions': r.secretManagerVersions,
          'K8s writes': r.kubernetesWrites,
          'HyperFleet calls': r.hyperfleetCalls,
          'Sentinel list calls': r.sentinelListCalls,
          converged: r.converged,
          'wall s': r.wallSeconds,
        })),
      after: (fleet) => {
        console.table(fleet.runs.map((r) => ({ run: r.name, ...r.perCluster })));
        const o = fleet.originalDesign;
        console.log(
          `Original design (a job per event and generation, a version per run): up to ${o.jobRunsUpTo} job runs and ${o.versionsUpTo} versions over both hours, ${o.executionsRatio}x our executions and ${o.versionsRatio}x our versions.`,
        );
      },
    }),
  ];

  for (const chosen of all.filter((s) => sections.has(s.name))) {
    results[chosen.key] = await chosen.run();
  }

  const dir = path.join(__dirname, '../../bench/results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nWrote ${path.relative(process.cwd(), path.join(dir, 'latest.json'))}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
