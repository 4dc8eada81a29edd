// Telemetry volume per unit of work, for the cost model (Cloud Logging bills ingested bytes, Cloud
// Trace ingested spans): the shipped adapter and reporter bundles in functions-framework and the job
// bundle as a process, at the deployed settings (terraform/modules/pullsecret-adapter: LOG_LEVEL
// info, LOG_FORMAT json, OTEL_TRACES_EXPORTER otlp with parentbased_traceidratio at
// tracing_sampler_ratio's default 1), against the emulators, exporting to the local trace receiver.
// Log bytes are what a process writes to stdout and stderr, one Cloud Logging entry per line. Cloud
// Logging bills the LogEntry, which adds metadata (resource, labels, timestamps, ids) to each line,
// so the bytes here are a lower bound of the billed volume; nothing else is estimated.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ReadyProcess } from '../emulators/common/child-process';
import { freePort } from '../emulators/common/free-port';
import type { HyperFleetApiEmulator } from '../emulators/hyperfleet-api/server';
import { startKubeApiServerEmulator } from '../emulators/kube-apiserver/server';
import { startPubSubEmulator, type PubSubEmulator } from '../emulators/pubsub/pubsub-emulator';
import { readJobImageNode } from '../emulators/pullsecret/job-image';
import { reconcileEvent } from '../emulators/pullsecret/sentinel/sentinel';
import { startFunctionProcess } from '../emulators/pullsecret/stack/function-process';
import { startSecretManagerEmulator } from '../emulators/secret-manager/server';
import { startTraceReceiver, type TraceReceiver } from '../emulators/traces/receiver';
import { JOB, seed, startAdapterEmulators } from './adapter-bench';
import { percentile, round } from './stats';
import { RESULT_MESSAGE_TYPE } from '../shared/job-result';

/** The repository (this file runs from bench/ under ts-jest and from dist/bench/ when built). */
const ROOT = (() => {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
})();
const JOB_BUNDLE = path.join(ROOT, 'dist-bundle/pull-secret-job/main.mjs');
/** The platform project (GOOGLE_CLOUD_PROJECT): each JSON line's trace field names it. */
const PLATFORM = 'hyperfleet-platform';
const CUSTOMER = 'demo-bench';
const TOPIC = `projects/${CUSTOMER}/topics/pullsecret-job-results`;
const SUBSCRIPTION = `projects/${CUSTOMER}/subscriptions/results-tap`;
/** Lines a function logs after answering (none expected) are waited for this long. */
const AFTER_ANSWER_MS = 50;

/** The job's credentials (first, then changed pull secret): no output may contain them. */
export const TELEMETRY_CREDENTIALS = ['tv-user:tv-password-1', 'tv-user:tv-password-2'];
const pullSecret = (n: 0 | 1) =>
  JSON.stringify({
    auths: { 'quay.io': { auth: Buffer.from(TELEMETRY_CREDENTIALS[n]!).toString('base64') } },
  });

/** One unit of work's telemetry, medians over `runs`. */
export interface TelemetryVolumeRow {
  readonly unit: string;
  readonly runs: number;
  readonly logBytesP50: number;
  readonly logLinesP50: number;
  readonly spansP50: number;
}

interface Sample {
  readonly bytes: number;
  readonly lines: number;
  readonly spans: number;
}

/** What one measurement saw: the rows, and every byte the measured processes wrote. */
export interface TelemetryVolume {
  readonly rows: TelemetryVolumeRow[];
  readonly output: string;
}

/** Terraform's environment for a component with tracing on (modules/tracing, main.tf). */
function deployedEnv(service: string, traces: TraceReceiver): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    METADATA_SERVER_DETECTION: 'none',
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    GOOGLE_CLOUD_PROJECT: PLATFORM,
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: '1',
    OTEL_SERVICE_NAME: service,
    OTEL_EXPORTER_OTLP_ENDPOINT: traces.endpoint,
  };
}

const sampledTraceparent = () =>
  `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;

const lineCount = (text: Buffer | string) => text.toString().split('\n').length - 1;

function row(unit: string, samples: readonly Sample[]): TelemetryVolumeRow {
  const p50 = (pick: (s: Sample) => number) => round(percentile(samples.map(pick), 50));
  return {
    unit,
    runs: samples.length,
    logBytesP50: p50((s) => s.bytes),
    logLinesP50: p50((s) => s.lines),
    spansP50: p50((s) => s.spans),
  };
}

/**
 * A function in functions-framework, measured per delivery. startFunctionProcess points its stdout
 * and stderr at one file (synchronous writes), so the file's growth is what the delivery wrote.
 */
class MeasuredFunction {
  private constructor(
    private readonly process: ReadyProcess,
    private readonly url: string,
    private readonly logFile: string,
    private readonly traces: TraceReceiver,
  ) {}

  static async start(
    target: 'adapter' | 'reporter',
    env: NodeJS.ProcessEnv,
    dir: string,
    traces: TraceReceiver,
  ): Promise<MeasuredFunction> {
    const port = await freePort();
    const logFile = path.join(dir, `${target}.log`);
    const started = await startFunctionProcess({ root: ROOT, target, port, env, logFile });
    return new MeasuredFunction(started, `http://127.0.0.1:${port}`, logFile, traces);
  }

  /** Pushes one Pub/Sub message as a push subscription does; the bytes and spans it cost. */
  async deliver(topic: string, message: Record<string, unknown>): Promise<Sample> {
    const bytesBefore = fs.statSync(this.logFile).size;
    const spansBefore = this.traces.stored();
    const response = await fetch(`${this.url}/projects/${CUSTOMER}/topics/${topic}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        message: { messageId: randomBytes(8).toString('hex'), ...message },
        subscription: `projects/${CUSTOMER}/subscriptions/${topic}-push`,
      }),
    });
    const answer = await response.text();
    if (response.status >= 300)
      throw new Error(`${this.url} answered ${response.status}: ${answer}`);
    await new Promise((resolve) => setTimeout(resolve, AFTER_ANSWER_MS));
    // Spans are flushed before the answer (functions/*/index.ts), so they are in by now.
    const written = fs.readFileSync(this.logFile).subarray(bytesBefore);
    return {
      bytes: written.length,
      lines: lineCount(written),
      spans: this.traces.stored() - spansBefore,
    };
  }

  /** Stops the process; everything it wrote, from its start. */
  async stop(): Promise<string> {
    await this.process.stop();
    return fs.readFileSync(this.logFile, 'utf8');
  }
}

/** The emulators every part shares: the HyperFleet API keeps the clusters all three work on. */
interface Emulators {
  readonly traces: TraceReceiver;
  readonly hyperfleet: HyperFleetApiEmulator;
  readonly cloudRunEndpoint: string;
  /** The adapter's env naming the launch queue and the emulators (adapter-bench.ts). */
  readonly adapterEnv: Readonly<Record<string, string>>;
  readonly dir: string;
}

/** A Sentinel event (Pub/Sub message) with Sentinel's sampled publish span as its traceparent. */
const sentinelMessage = (id: string) => ({
  data: Buffer.from(
    JSON.stringify(
      reconcileEvent(
        { id, generation: 1 },
        {
          traceId: randomBytes(16).toString('hex'),
          spanId: randomBytes(8).toString('hex'),
          traceFlags: 1,
        },
      ),
    ),
  ).toString('base64'),
  attributes: { _watermill_message_uuid: randomBytes(16).toString('hex') },
});

/** The adapter: Sentinel events for clusters already reconciled, then for clusters it launches for. */
async function measureAdapter(runs: number, e: Emulators, output: string[]) {
  const adapter = await MeasuredFunction.start(
    'adapter',
    {
      ...deployedEnv('pullsecret-adapter', e.traces),
      HYPERFLEET_API_BASE_URL: e.hyperfleet.baseUrl,
      ...e.adapterEnv,
    },
    e.dir,
    e.traces,
  );
  try {
    const topic = 'hyperfleet-system-clusters';
    // Outside the figures: the first event of an instance connects and loads the HTTP client.
    await adapter.deliver(topic, sentinelMessage('warm-up-cluster-that-does-not-exist'));
    const samples = { 'up-to-date': [] as Sample[], launch: [] as Sample[] };
    for (const scenario of ['up-to-date', 'launch'] as const)
      for (const id of seed(e.hyperfleet, scenario, runs))
        samples[scenario].push(await adapter.deliver(topic, sentinelMessage(id)));
    return [
      row('adapter event, up to date', samples['up-to-date']),
      row('adapter event, launch', samples.launch),
    ];
  } finally {
    output.push(await adapter.stop());
  }
}

/** Runs the job process once; its stdout and stderr bytes and the spans it exported. */
function runJob(env: NodeJS.ProcessEnv, traces: TraceReceiver): Promise<Sample & { out: string }> {
  const image = readJobImageNode();
  const spansBefore = traces.stored();
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...image.nodeFlags, JOB_BUNDLE, 'run-job', 'pull-secret'],
      {
        env: {
          ...env,
          ...(image.env.NODE_OPTIONS !== undefined ? { NODE_OPTIONS: image.env.NODE_OPTIONS } : {}),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const out = Buffer.concat(chunks).toString('utf8');
      if (code !== 0) return reject(new Error(`job exited ${code}:\n${out}`));
      // The job shuts tracing down (a final flush) before it exits.
      resolve({
        bytes: Buffer.concat(chunks).length,
        lines: lineCount(out),
        spans: traces.stored() - spansBefore,
        out,
      });
    });
  });
}

/** The Pub/Sub emulator's REST surface (as the job tests use it). */
async function pubsubRest(pubsub: PubSubEmulator, method: string, path: string, body: unknown) {
  const response = await fetch(`http://${pubsub.endpoint}/v1/${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json() as Promise<unknown>;
}

/** The one result message a run published (pulled and acknowledged). */
async function publishedResult(pubsub: PubSubEmulator): Promise<Record<string, unknown>> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const pulled = (await pubsubRest(pubsub, 'POST', `${SUBSCRIPTION}:pull`, {
      maxMessages: 1,
      returnImmediately: true,
    })) as { receivedMessages?: { ackId: string; message: Record<string, unknown> }[] };
    const received = pulled.receivedMessages?.[0];
    if (received) {
      await pubsubRest(pubsub, 'POST', `${SUBSCRIPTION}:acknowledge`, {
        ackIds: [received.ackId],
      });
      // The job's start report comes first; the result is what this section measures.
      const attributes = received.message.attributes as Record<string, string> | undefined;
      if (attributes?.type === RESULT_MESSAGE_TYPE) return received.message;
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the job published no result message');
}

/**
 * The job, launched as the adapter launches it (a first run at generation 1, a resync of the same
 * generation, generation 2 with a new pull secret), publishing its result; then the reporter,
 * reporting the first and the resync runs' result messages.
 */
async function measureJobAndReporter(runs: number, e: Emulators, output: string[]) {
  const ids = seed(e.hyperfleet, 'launch', runs);
  const namespace = (id: string) => `clusters-${id}`;
  const [sm, kube, pubsub] = await Promise.all([
    startSecretManagerEmulator(),
    startKubeApiServerEmulator({ namespaces: ids.map(namespace) }),
    startPubSubEmulator(),
  ]);
  try {
    await pubsubRest(pubsub, 'PUT', TOPIC, {});
    await pubsubRest(pubsub, 'PUT', SUBSCRIPTION, { topic: TOPIC });
    const launchOf = {
      first: { generation: 1, attempt: 1, secret: 0 },
      unchanged: { generation: 1, attempt: 2, secret: 0 },
      changed: { generation: 2, attempt: 1, secret: 1 },
    } as const;
    const job = { first: [] as Sample[], unchanged: [] as Sample[], changed: [] as Sample[] };
    const results: Record<string, unknown>[] = [];
    for (const kind of ['first', 'unchanged', 'changed'] as const) {
      for (const id of ids) {
        const launch = launchOf[kind];
        const run = await runJob(
          {
            ...deployedEnv('pullsecret-job', e.traces),
            SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
            PUBSUB_EMULATOR_HOST: pubsub.endpoint,
            RESULTS_TOPIC: TOPIC,
            GCP_PROJECT_ID: CUSTOMER,
            CLUSTER_ID: id,
            PULL_SECRET_DATA: pullSecret(launch.secret),
            GENERATION: String(launch.generation),
            LAUNCH_ATTEMPT: String(launch.attempt),
            CLOUD_RUN_EXECUTION: `pullsecret-job-${randomBytes(3).toString('hex')}`,
            KUBECONFIG: kube.kubeconfigPath,
            MANAGEMENT_NAMESPACE: namespace(id),
            // The adapter's launch span, as it passes it to each execution.
            TRACEPARENT: sampledTraceparent(),
          },
          e.traces,
        );
        output.push(run.out);
        job[kind].push(run);
        const message = await publishedResult(pubsub);
        // Reported: generation 1's results only, the clusters' generation in the HyperFleet store.
        if (kind !== 'changed') results.push(message);
      }
    }
    const reporter = await MeasuredFunction.start(
      'reporter',
      {
        ...deployedEnv('pullsecret-reporter', e.traces),
        HYPERFLEET_API_BASE_URL: e.hyperfleet.baseUrl,
        PULL_SECRET_JOB: JOB,
        LAUNCH_QUEUE: 'projects/demo-project/locations/us-central1/queues/pullsecret-launches',
        LAUNCHER_SERVICE_ACCOUNT: 'pullsecret-launcher@demo-project.iam.gserviceaccount.com',
        CLOUD_RUN_EMULATOR_HOST: e.cloudRunEndpoint,
        SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
      },
      e.dir,
      e.traces,
    );
    const reported: Sample[] = [];
    try {
      for (const message of results)
        reported.push(await reporter.deliver('pullsecret-job-results', message));
    } finally {
      output.push(await reporter.stop());
    }
    return [
      row('job run, first (new cluster)', job.first),
      row('job run, unchanged', job.unchanged),
      row('job run, changed', job.changed),
      row('reporter result message', reported),
    ];
  } finally {
    await Promise.all([sm.stop(), kube.stop(), pubsub.stop()]);
  }
}

/** Measures `runs` units of each kind; the rows, and all the output for a secret scan. */
export async function measureTelemetryVolume(runs: number): Promise<TelemetryVolume> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'telemetry-volume-'));
  const traces = await startTraceReceiver({ dir: path.join(dir, 'traces') });
  // As in adapter-bench: launches go through the Cloud Tasks emulator, RunJob answers at once and
  // the execution does nothing, in this process.
  const emulators = await startAdapterEmulators();
  const { hyperfleet, cloudRun, adapterEnv } = emulators;
  const output: string[] = [];
  try {
    const e = { traces, hyperfleet, cloudRunEndpoint: cloudRun.endpoint, adapterEnv, dir };
    const rows = [
      ...(await measureAdapter(runs, e, output)),
      ...(await measureJobAndReporter(runs, e, output)),
    ];
    return { rows, output: output.join('') };
  } finally {
    await emulators.stop();
    await traces.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The bench section's figures. */
export async function benchTelemetryVolume(runs: number): Promise<TelemetryVolumeRow[]> {
  return (await measureTelemetryVolume(runs)).rows;
}
