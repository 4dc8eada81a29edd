// `npm run bench`: measures what the system costs and writes bench/results/latest.json.
// Sections (BENCH_SECTIONS, comma-separated; default all but fleet-days, which takes about an hour
// at 10,000 clusters on 2 vCPUs: ask for it by name): floor, bundles, job,
// adapter, cold, e2e, fleet, fleet-burst (BENCH_BURST_CLUSTERS new clusters through the launch
// queue at BENCH_BURST_RATE a minute, Terraform's default 120, under a RunJob quota of
// BENCH_BURST_QUOTA a minute, once per adapter instance count in BENCH_BURST_INSTANCES), fleet-days (BENCH_DAYS_CLUSTERS clusters, BENCH_DAYS simulated days
// at the adapter's defaults), timing (wall-clock claims the tests no longer bound), telemetry (log
// bytes and spans per event, execution and result at the deployed settings; BENCH_TELEMETRY_RUNS
// of each, about 40 s at 10), rotation (pure computation, a few seconds: the platform default's
// rotation and the daily resync as one batched execution each, at BENCH_ROTATION_CLUSTERS
// (10000,100000) on BENCH_ROTATION_MANAGEMENT_CLUSTERS (200), from the job figures in
// bench/reference.json; bench/fleet/rotation-sim.ts). `--clusters 1000,10000` runs only the fleet simulation, once per size,
// and prints the per-cluster costs side by side (they must stay flat as the fleet grows).
// `--save-reference` also copies the sections measured into bench/reference.json, the run the
// documentation quotes, and renders the figures in README.md and docs/ from it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchAdapter } from './adapter-bench';
import { bundleReport } from './bundle-report';
import { benchColdStart } from './cold-start';
import { benchEndToEnd } from './e2e-bench';
import { simulateFleet, type FleetFigures } from './fleet/fleet-sim';
import { simulateBurst, simulateDays, type BurstFigures } from './fleet/fleet-quota';
import { simulateRotation, type JobRunReference } from './fleet/rotation-sim';
import { benchFloor, nodeBinaryVersion, ratio, type FloorFigures } from './floor';
import { benchJobRuns } from './job-bench';
import { benchTelemetryVolume } from './telemetry-volume';
import { targetRows } from './targets';
import { benchTimingClaims } from './timing-claims';

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
  const clustersFlag = process.argv.indexOf('--clusters');
  const fleetSizes =
    clustersFlag > 0
      ? (process.argv[clustersFlag + 1] ?? '').split(',').map(Number)
      : [Number(process.env.BENCH_FLEET_CLUSTERS ?? 1000)];
  if (fleetSizes.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error('--clusters takes positive whole numbers, e.g. --clusters 1000,10000');
  const defaultSections =
    clustersFlag > 0
      ? 'fleet'
      : 'floor,bundles,job,adapter,cold,e2e,fleet,fleet-burst,timing,telemetry,rotation';
  const sections = new Set((process.env.BENCH_SECTIONS ?? defaultSections).split(','));
  const machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
  };
  process.stderr.write(
    `Benchmarking on ${machine.cpus} x ${machine.cpuModel}, ${machine.memoryGb} GiB, Node ${machine.node}; measured processes: ${nodeBinaryVersion()}\n`,
  );
  const results: Record<string, unknown> = { measuredAt: new Date().toISOString(), machine };

  /** A wall time and peak RSS as multiples of the floor measured in this run (when it ran). */
  const vsFloor = (wallMs: number, rssMb: number) => {
    const floor = results.floor as FloorFigures | undefined;
    return floor
      ? {
          'wall x floor': ratio(wallMs, floor.wallMsP50),
          'RSS x floor': ratio(rssMb, floor.peakRssMb),
        }
      : {};
  };

  // Each section measures, keeps its figures under `key` in latest.json and prints one table.
  const all: Section[] = [
    section({
      name: 'floor',
      key: 'floor',
      measure: () => benchFloor(Number(process.env.BENCH_FLOOR_RUNS ?? 10)),
      title: () =>
        'Floor: `node -e 0` (every wall and RSS figure below is also given as a multiple of it)',
      rows: (floor) => [
        { node: floor.node, 'wall p50 ms': floor.wallMsP50, 'peak RSS MB': floor.peakRssMb },
      ],
    }),
    section({
      name: 'bundles',
      key: 'bundles',
      measure: () => Promise.resolve(bundleReport()),
      title: () =>
        'Bundles (dist-bundle/, esbuild metafile): read at start = the entry and its static imports',
      rows: (bundles) =>
        bundles.map((b) => ({
          bundle: b.bundle,
          'total KiB': b.totalKiB,
          'at start KiB': b.atStartKiB,
          'largest at start': b.topAtStart,
          'largest loaded when needed': b.topLazy,
        })),
    }),
    section({
      name: 'job',
      key: 'job',
      measure: () => benchJobRuns(Number(process.env.BENCH_JOB_RUNS ?? 10)),
      title: () =>
        'Pull secret job: one process per run as the adapter launches it, against the Secret Manager, Kubernetes and HyperFleet API emulators',
      rows: (job) =>
        job.map((j) => ({
          run: j.kind,
          runs: j.runs,
          'wall p50 ms': j.wallMsP50,
          'wall p90 ms': j.wallMsP90,
          'peak RSS MB': j.maxRssMb,
          ...vsFloor(j.wallMsP50, j.maxRssMb),
          'SM calls': j.secretManagerCalls,
          'K8s calls': j.kubernetesCalls,
          'HyperFleet calls': j.hyperfleetCalls,
        })),
    }),
    section({
      name: 'adapter',
      key: 'adapter',
      measure: () => benchAdapter(Number(process.env.BENCH_ADAPTER_EVENTS ?? 2000)),
      title: () =>
        'Adapter handler: real handler in its own process, HyperFleet (HTTP), Cloud Tasks (gRPC; it dispatches RunJob to Cloud Run) and Cloud Run (gRPC) emulators',
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
          'Cloud Tasks calls/event': a.cloudTasksCallsPerEvent,
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
          ...vsFloor(c.loadMsP50, c.peakRssMb),
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
      name: 'telemetry',
      key: 'telemetryVolume',
      measure: () => benchTelemetryVolume(Number(process.env.BENCH_TELEMETRY_RUNS ?? 10)),
      title: () =>
        'Telemetry per unit of work at the deployed settings (LOG_LEVEL=info, LOG_FORMAT=json, every trace sampled): stdout+stderr bytes and lines (a lower bound of the billed LogEntry volume), spans exported',
      rows: (rows) =>
        rows.map((r) => ({
          unit: r.unit,
          runs: r.runs,
          'log bytes p50': r.logBytesP50,
          'log lines p50': r.logLinesP50,
          'spans p50': r.spansP50,
        })),
    }),
    section({
      name: 'fleet',
      key: 'fleet',
      measure: async () => {
        const runs: FleetFigures[] = [];
        for (const size of fleetSizes) {
          const fleet = await simulateFleet(size, undefined, (hour, minutes, seconds) =>
            console.log(
              `${size} clusters, hour ${hour}: ${minutes} simulated minutes in ${seconds} s`,
            ),
          );
          runs.push(fleet);
          // Printed as each size finishes: a large fleet takes long, and a stopped run keeps these.
          for (const [hour, run] of fleet.runs.entries())
            console.log(
              `${size} clusters, hour ${hour + 1}: ${JSON.stringify(run.perCluster)} per cluster, ${run.wallSeconds} s`,
            );
        }
        return runs;
      },
      title: (fleets) =>
        `Fleet simulation: ${fleets.map((f) => f.clusters).join(' and ')} clusters, Sentinel's rules, two simulated hours`,
      rows: (fleets) =>
        fleets.flatMap((fleet) =>
          fleet.runs.map((r) => ({
            clusters: fleet.clusters,
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
        ),
      after: (fleets) => {
        console.log('Per cluster (side by side: flat means the cost does not grow with the fleet)');
        console.table(
          fleets.flatMap((fleet) =>
            fleet.runs.map((r, hour) => ({
              clusters: fleet.clusters,
              hour: hour + 1,
              ...r.perCluster,
            })),
          ),
        );
        for (const fleet of fleets) {
          const o = fleet.originalDesign;
          console.log(
            `${fleet.clusters} clusters, original design (a job per event and generation, a version per run): up to ${o.jobRunsUpTo} job runs and ${o.versionsUpTo} versions over both hours, ${o.executionsRatio}x our executions and ${o.versionsRatio}x our versions.`,
          );
        }
      },
    }),
    section({
      name: 'fleet-burst',
      key: 'fleetBurst',
      measure: async () => {
        const options = {
          quotaPerMinute: Number(process.env.BENCH_BURST_QUOTA ?? 180),
          queueRatePerMinute: Number(process.env.BENCH_BURST_RATE ?? 120),
        };
        const bursts: BurstFigures[] = [];
        for (const instances of (process.env.BENCH_BURST_INSTANCES ?? '2,10')
          .split(',')
          .map(Number))
          bursts.push(
            await simulateBurst(
              Number(process.env.BENCH_BURST_CLUSTERS ?? 2000),
              { ...options, instances },
              (minutes, converged, seconds) =>
                console.log(
                  `burst, ${instances} instances: ${minutes} simulated minutes, ${converged} converged, ${seconds} s`,
                ),
            ),
          );
        return bursts;
      },
      title: (bursts) =>
        `Fleet burst: ${bursts[0]?.clusters} new clusters at once through the launch queue at ${bursts[0]?.queueRatePerMinute}/min, Cloud Run's RunJob quota ${bursts[0]?.quotaPerMinute}/min`,
      rows: (bursts) =>
        bursts.map((b) => ({
          'adapter instances': b.instances,
          clusters: b.clusters,
          converged: b.converged,
          'minutes to converge': b.minutesToConverge,
          executions: b.executions,
          'busiest minute (RunJob)': b.busiestMinute,
          RESOURCE_EXHAUSTED: b.runJobRefused,
          'queue dispatches': b.dispatches,
          deliveries: b.deliveries,
          'failed (redelivered)': b.failedDeliveries,
          'wall s': b.wallSeconds,
        })),
    }),
    section({
      name: 'fleet-days',
      key: 'fleetDays',
      measure: () =>
        simulateDays(
          Number(process.env.BENCH_DAYS_CLUSTERS ?? 10_000),
          Number(process.env.BENCH_DAYS ?? 2),
          60_000,
          (hours, seconds) => console.log(`days: ${hours} simulated hours in ${seconds} s`),
        ),
      title: (d) =>
        `Fleet over ${d.days} simulated days: ${d.clusters} clusters at the adapter's defaults (RESYNC_INTERVAL ${d.resyncInterval}, launch queue ${d.queueRatePerMinute}/min), ${d.stepSeconds} s steps`,
      rows: (d) => [
        {
          clusters: d.clusters,
          converged: d.converged,
          executions: d.executions,
          'executions/cluster/day': d.executionsPerClusterPerDay,
          'after day 1 (steady)': d.steadyExecutionsPerClusterPerDay,
          'events/cluster/day': d.eventsPerClusterPerDay,
          'busiest minute (RunJob)': d.busiestMinute,
          'wall s': d.wallSeconds,
        },
      ],
    }),
    section({
      name: 'rotation',
      key: 'rotation',
      measure: () => {
        // The calls and walls of one run come from the job section: this run's when it measured
        // one, else the committed reference's.
        const reference = JSON.parse(
          fs.readFileSync(path.join(__dirname, '../../bench/reference.json'), 'utf8'),
        ) as { sections: { job: { figures: JobRunReference[] } } };
        const job =
          (results.job as JobRunReference[] | undefined) ?? reference.sections.job.figures;
        const managementClusters = Number(process.env.BENCH_ROTATION_MANAGEMENT_CLUSTERS ?? 200);
        return Promise.resolve(
          (process.env.BENCH_ROTATION_CLUSTERS ?? '10000,100000')
            .split(',')
            .map((n) => simulateRotation(Number(n), managementClusters, job)),
        );
      },
      title: (rows) =>
        `Rotation of the platform default and the daily resync, each one batched execution (${rows[0]?.tasks} tasks and up at ${rows[0]?.parameters.clustersPerTask} clusters a task, parallelism ${rows[0]?.parallelism}), simulated`,
      rows: (rows) =>
        rows.map((r) => ({
          clusters: r.clusters,
          'mgmt clusters': r.managementClusters,
          tasks: r.tasks,
          'min to all Secrets (direct)': r.minutesToAllSecrets,
          target: r.targetMinutes,
          'local calibration': r.localCalibration.minutesToAllSecrets,
          'Connect Gateway': r.connectGateway.minutesToAllSecrets,
          'CG busiest minute': r.connectGateway.busiestMinute,
          'CG fleets for target': r.connectGateway.fleetsForTarget,
          'per-cluster design': r.perClusterDesignMinutes,
          'resync executions/day': r.resync.executionsPerDay,
          'resync min': r.resync.minutes,
          'resync task-s/cluster': r.resync.taskSecondsPerCluster,
        })),
    }),
    section({
      name: 'timing',
      key: 'timingClaims',
      measure: () => benchTimingClaims(Number(process.env.BENCH_TIMING_RUNS ?? 5)),
      title: () =>
        'Timing claims the tests no longer bound by wall clock (they wait for the event): each run against the bound a test used to hold',
      rows: (claims) =>
        claims.map((c) => ({
          claim: c.claim,
          runs: c.runs,
          'p50 ms': c.p50Ms,
          'max ms': c.maxMs,
          'bound ms': c.boundMs,
          met: c.met,
        })),
    }),
  ];

  for (const chosen of all.filter((s) => sections.has(s.name))) {
    results[chosen.key] = await chosen.run();
  }
  if (results.floor) {
    const targets = targetRows(results as unknown as Parameters<typeof targetRows>[0]);
    if (targets.length > 0) {
      console.log(
        `\nIssue 17's targets (floor: node -e 0 = ${(results.floor as FloorFigures).wallMsP50} ms, ${(results.floor as FloorFigures).peakRssMb} MB)`,
      );
      console.table(targets);
      results.targets = targets;
    }
  }

  const dir = path.join(__dirname, '../../bench/results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(
    dir,
    clustersFlag > 0 ? `fleet-${fleetSizes.join('-')}.json` : 'latest.json',
  );
  fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nWrote ${path.relative(process.cwd(), file)}`);
  if (process.argv.includes('--save-reference')) saveReference(file);
}

/** Merges the run's sections into bench/reference.json and renders the documentation's figures. */
function saveReference(resultsFile: string): void {
  const renderer = path.join(__dirname, '../../scripts/render-bench-figures.cjs');
  const run = spawnSync(process.execPath, [renderer, '--merge', resultsFile], { stdio: 'inherit' });
  if (run.status !== 0) throw new Error(`${renderer} --merge ${resultsFile} failed`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
