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

  if (sections.has('job')) {
    const job = await benchJobRuns(Number(process.env.BENCH_JOB_RUNS ?? 10));
    results.job = job;
    console.log(
      '\nPull secret job: one process per run, against the Secret Manager and Kubernetes emulators',
    );
    console.table(
      job.map((j) => ({
        run: j.kind,
        runs: j.runs,
        'wall p50 ms': j.wallMsP50,
        'wall p90 ms': j.wallMsP90,
        'peak RSS MB': j.maxRssMb,
        'SM calls': j.secretManagerCalls,
        'K8s calls': j.kubernetesCalls,
      })),
    );
  }
  if (sections.has('adapter')) {
    const adapter = await benchAdapter(Number(process.env.BENCH_ADAPTER_EVENTS ?? 300));
    results.adapter = adapter;
    console.log(
      '\nAdapter handler: real handler in its own process, HyperFleet (HTTP) and Cloud Run (gRPC) emulators',
    );
    console.table(
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
    );
  }
  if (sections.has('cold')) {
    const cold = await benchColdStart(Number(process.env.BENCH_COLD_RUNS ?? 5));
    results.coldStart = cold;
    console.log(
      '\nFunction cold start: a fresh process loads the module, then handles a first event',
    );
    console.table(
      cold.map((c) => ({
        function: c.module,
        'module load p50 ms': c.loadMsP50,
        'first event p50 ms': c.firstEventMsP50,
        'process p50 ms': c.processMsP50,
        'peak RSS MB': c.peakRssMb,
      })),
    );
  }
  if (sections.has('e2e')) {
    const e2e = await benchEndToEnd(Number(process.env.BENCH_E2E_CLUSTERS ?? 20));
    results.endToEnd = e2e;
    console.log(
      `\nEnd to end on the local stack (${e2e.sentinel}): creation -> PullsecretSuccessful=True`,
    );
    console.table([
      { clusters: e2e.clusters, 'p50 ms': e2e.p50Ms, 'p90 ms': e2e.p90Ms, 'max ms': e2e.maxMs },
    ]);
  }
  if (sections.has('fleet')) {
    const fleet = await simulateFleet(Number(process.env.BENCH_FLEET_CLUSTERS ?? 1000));
    results.fleet = fleet;
    console.log(
      `\nFleet simulation: ${fleet.clusters} clusters, Sentinel's rules, two simulated hours`,
    );
    console.table(
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
    );
    console.table(fleet.runs.map((r) => ({ run: r.name, ...r.perCluster })));
    const o = fleet.originalDesign;
    console.log(
      `Original design (a job per event and generation, a version per run): up to ${o.jobRunsUpTo} job runs and ${o.versionsUpTo} versions over both hours, ${o.executionsRatio}x our executions and ${o.versionsRatio}x our versions.`,
    );
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
