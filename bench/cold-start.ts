import path from 'node:path';
import { measureNodeProcess } from './measure-process';
import { percentile, round } from './stats';

export interface ColdStartFigures {
  readonly module: 'adapter' | 'reporter';
  /** Loading the function's module (what a new Cloud Run instance does before serving). */
  readonly loadMsP50: number;
  /** Then building its clients and handling a first (malformed) event. */
  readonly firstEventMsP50: number;
  readonly processMsP50: number;
  readonly peakRssMb: number;
}

const PROBE = `
const t0 = process.hrtime.bigint();
import(require('node:url').pathToFileURL(process.env.BENCH_MODULE).href).then(async () => {
  const loaded = process.hrtime.bigint();
  const { getFunction } = require('@google-cloud/functions-framework/testing');
  await getFunction(process.env.BENCH_TARGET)({ type: 'google.cloud.pubsub.topic.v1.messagePublished', id: '1', source: 's', specversion: '1.0', data: {} });
  const done = process.hrtime.bigint();
  console.log(JSON.stringify({ loadMs: Number(loaded - t0) / 1e6, firstEventMs: Number(done - loaded) / 1e6 }));
  process.exit(0);
});`;

/** Time and memory of a fresh function instance: module load, then the first event. */
export async function benchColdStart(runs: number): Promise<ColdStartFigures[]> {
  const figures: ColdStartFigures[] = [];
  for (const module of ['adapter', 'reporter'] as const) {
    const loads: number[] = [];
    const firsts: number[] = [];
    const walls: number[] = [];
    let rss = 0;
    for (let i = 0; i < runs; i++) {
      const run = await measureNodeProcess('-e', [PROBE], {
        PATH: process.env.PATH,
        NODE_PATH: path.join(__dirname, '../../node_modules'),
        METADATA_SERVER_DETECTION: 'none',
        BENCH_MODULE: path.join(__dirname, `../../dist-bundle/${module}/index.mjs`),
        BENCH_TARGET: module,
        HYPERFLEET_API_BASE_URL: 'http://127.0.0.1:9',
        PULL_SECRET_JOB: 'projects/demo-bench/locations/local/jobs/pullsecret-job',
        LAUNCH_QUEUE: 'projects/demo-project/locations/us-central1/queues/pullsecret-launches',
        LAUNCHER_SERVICE_ACCOUNT: 'pullsecret-launcher@demo-project.iam.gserviceaccount.com',
        LOG_LEVEL: 'error',
      });
      const result = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as {
        loadMs: number;
        firstEventMs: number;
      };
      loads.push(result.loadMs);
      firsts.push(result.firstEventMs);
      walls.push(run.wallMs);
      rss = Math.max(rss, run.maxRssMb);
    }
    figures.push({
      module,
      loadMsP50: round(percentile(loads, 50)),
      firstEventMsP50: round(percentile(firsts, 50)),
      processMsP50: round(percentile(walls, 50)),
      peakRssMb: round(rss),
    });
  }
  return figures;
}
