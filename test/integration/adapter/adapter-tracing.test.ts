// The adapter's tracing end to end, as it deploys: the bundle in functions-framework (index.ts
// wiring: startTracing at boot, a flush before each answer), the HyperFleet and Cloud Run emulators,
// the real OTLP/HTTP exporter sending to a tiny receiver, and the function's own stdout JSON lines.
// A module-load hook records which bundle chunks each process loads.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ReadyProcess } from '../../../emulators/common/child-process';
import { freePort } from '../../../emulators/common/free-port';
import { startCloudRunEmulator, type CloudRunEmulator } from '../../../emulators/cloud-run/server';
import {
  startCloudTasksEmulator,
  type CloudTasksEmulator,
} from '../../../emulators/cloud-tasks/server';
import { TEST_LAUNCHER, TEST_LAUNCH_QUEUE } from '../../helpers/adapter';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import { startFunctionProcess } from '../../../emulators/pullsecret/stack/function-process';
import { canaryPullSecret, leaks } from '../../helpers/canary';
import { TEST_JOB, hangingTestJob } from '../../helpers/cloud-run';
import { pushPubSub, sentinelEvent } from '../../helpers/events';
import { readySpec, seedReadyCluster } from '../../helpers/hyperfleet';
import { OtlpTestReceiver } from '../../helpers/otlp-test-receiver';
import { RecordingProxy } from '../../helpers/recording-proxy';
import { ROOT } from '../../helpers/run-process';
import { waitFor } from '../../helpers/wait-for';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE}-${PARENT}-01`;
const TRACESTATE = 'sentinel=abc';
const CLUSTER_ROUTE = 'GET /api/hyperfleet/v1/clusters/{cluster_id}';
const KIND = { client: 3, consumer: 5 } as const;
const HOOKS = `
import fs from 'node:fs';
export async function load(url, context, nextLoad) {
  if (url.includes('/dist-bundle/')) fs.appendFileSync(process.env.MODULE_LOAD_LOG, url + '\\n');
  return nextLoad(url, context);
}`;

/** The adapter bundle's chunk that holds the OpenTelemetry SDK and exporter (esbuild's metafile). */
function sdkChunk(): string {
  const meta = JSON.parse(
    fs.readFileSync(path.join(ROOT, 'dist-bundle/adapter/meta.json'), 'utf8'),
  ) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
  const [chunk] = Object.entries(meta.outputs).find(([, output]) =>
    Object.keys(output.inputs).includes('shared/tracing/sdk.ts'),
  )!;
  return path.basename(chunk);
}

interface Adapter {
  url: string;
  log: string;
  loads: string;
  receiver: OtlpTestReceiver;
  process: ReadyProcess;
}

describe('adapter tracing (the deployed bundle)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adapter-tracing-'));
  let hyperfleet: HyperFleetApiEmulator;
  let proxy: RecordingProxy;
  let cloudRun: CloudRunEmulator;
  let tasks: CloudTasksEmulator;
  const adapters: Record<'off' | 'on', Adapter> = {} as never;

  beforeAll(async () => {
    fs.writeFileSync(path.join(dir, 'hooks.mjs'), HOOKS);
    fs.writeFileSync(
      path.join(dir, 'register.mjs'),
      "import { register } from 'node:module'; register('./hooks.mjs', import.meta.url);",
    );
    hyperfleet = await startHyperFleetApiEmulator();
    proxy = await RecordingProxy.start(hyperfleet.baseUrl);
    cloudRun = await startCloudRunEmulator({
      jobs: [hangingTestJob()],
    });
    tasks = await startCloudTasksEmulator({ queues: [{ name: TEST_LAUNCH_QUEUE }] });
    for (const mode of ['off', 'on'] as const) {
      const port = await freePort();
      const receiver = await OtlpTestReceiver.start();
      const log = path.join(dir, `adapter-${mode}.log`);
      const loads = path.join(dir, `loads-${mode}.txt`);
      const started = await startFunctionProcess({
        root: ROOT,
        nodeArgs: ['--import', path.join(dir, 'register.mjs')],
        target: 'adapter',
        port,
        logFile: log,
        env: {
          PATH: process.env.PATH,
          METADATA_SERVER_DETECTION: 'none',
          MODULE_LOAD_LOG: loads,
          HYPERFLEET_API_BASE_URL: proxy.baseUrl,
          PULL_SECRET_JOB: TEST_JOB,
          LAUNCH_QUEUE: TEST_LAUNCH_QUEUE,
          LAUNCHER_SERVICE_ACCOUNT: TEST_LAUNCHER,
          CLOUD_TASKS_EMULATOR_HOST: tasks.endpoint,
          CLOUD_RUN_API_ENDPOINT: cloudRun.apiUrl,
          CLOUD_RUN_EMULATOR_HOST: cloudRun.endpoint,
          GOOGLE_CLOUD_PROJECT: 'demo-project',
          LOG_FORMAT: 'json',
          LOG_LEVEL: 'debug',
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
          ...(mode === 'on' ? { OTEL_TRACES_EXPORTER: 'otlp' } : {}),
        },
      });
      adapters[mode] = { url: `http://127.0.0.1:${port}`, log, loads, receiver, process: started };
    }
  });
  afterAll(async () => {
    await Promise.all(Object.values(adapters).map((a) => a.process.stop()));
    await Promise.all(Object.values(adapters).map((a) => a.receiver.stop()));
    await tasks.stop();
    await cloudRun.stop();
    await proxy.stop();
    await hyperfleet.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The execution the queue started for the cluster's launch task (dispatched asynchronously). */
  const executionOf = (id: string) =>
    waitFor(`the execution of ${id}`, () =>
      [...cloudRun.executions.values()].find((e) => e.env.CLUSTER_ID === id),
    );
  const clusterRequest = (id: string) =>
    proxy.requests.find((r) => r.method === 'GET' && r.path.endsWith(`/clusters/${id}`));
  const entries = (adapter: Adapter) =>
    fs
      .readFileSync(adapter.log, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  /**
   * The function's stdout JSON lines about a cluster (written while handling its event), once the
   * last of them (the status stored) has landed: the logger writes asynchronously.
   */
  const linesOf = async (adapter: Adapter, id: string) => {
    const about = () =>
      entries(adapter).filter(
        (entry) => (entry.metadata as { cluster_id?: string } | undefined)?.cluster_id === id,
      );
    return waitFor(`the adapter's "Status stored" line for ${id}`, () => {
      const lines = about();
      return lines.some((e) => /Status stored/.test(String(e.message))) && lines;
    });
  };
  const traced = (trace: string, span?: string) => ({
    'logging.googleapis.com/trace': `projects/demo-project/traces/${trace}`,
    'logging.googleapis.com/spanId': span ?? expect.stringMatching(/^[0-9a-f]{16}$/),
    'logging.googleapis.com/trace_sampled': true,
  });
  const loaded = (adapter: Adapter) => fs.readFileSync(adapter.loads, 'utf8');

  it('export off: the SDK chunk never loads and nothing is sent, yet the trace id reaches logs, API calls and the execution', async () => {
    const off = adapters.off;
    const { id } = seedReadyCluster(hyperfleet, { name: 'traced-off' });
    expect(await pushPubSub(off.url, { ...sentinelEvent(id, 1), traceparent: TRACEPARENT })).toBe(
      204,
    );
    // The API's no-op spans keep the remote parent's ids: everything names Sentinel's span.
    expect((await executionOf(id)).env.TRACEPARENT).toBe(TRACEPARENT);
    expect(clusterRequest(id)?.headers.traceparent).toBe(TRACEPARENT);
    const lines = await linesOf(off, id);
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(line).toMatchObject(traced(TRACE, PARENT));
    expect(off.receiver.requests).toEqual([]);
    expect(loaded(off)).toContain('/dist-bundle/adapter/index.mjs');
    expect(loaded(off)).not.toContain(sdkChunk());
    // The control: with export on, the same chunk is loaded at boot.
    expect(loaded(adapters.on)).toContain(sdkChunk());
  });

  it('export on: one trace from the event through the HyperFleet calls to the execution, flushed before the answer', async () => {
    const on = adapters.on;
    const canary = canaryPullSecret('traced');
    const { id } = seedReadyCluster(hyperfleet, {
      name: 'traced-on',
      spec: readySpec(canary.text),
    });
    const event = { ...sentinelEvent(id, 1), traceparent: TRACEPARENT, tracestate: TRACESTATE };
    expect(await pushPubSub(on.url, event)).toBe(204);

    // Flushed before the answer: the spans are already at the receiver, as OTLP/HTTP JSON.
    expect(on.receiver.requests.length).toBeGreaterThan(0);
    for (const request of on.receiver.requests)
      expect(request).toEqual({ path: '/v1/traces', contentType: 'application/json' });
    const spans = on.receiver.spans().filter((s) => s.traceId === TRACE);
    const root = spans.find((s) => s.name === 'adapter.handle');
    expect(root).toMatchObject({
      serviceName: 'pullsecret-adapter',
      resource: { 'gcp.project_id': 'demo-project' },
      parentSpanId: PARENT,
      kind: KIND.consumer,
      attributes: {
        'hyperfleet.cluster.id': id,
        'hyperfleet.cluster.generation': 1,
        'pullsecret.decision': 'launch-apply',
      },
    });
    const children = spans.filter((s) => s !== root);
    expect(children.filter((s) => s.parentSpanId !== root!.spanId)).toEqual([]);
    expect(new Set(children.map((s) => s.name))).toEqual(
      new Set([
        CLUSTER_ROUTE,
        'GET /api/hyperfleet/v1/clusters/{cluster_id}/statuses',
        'PUT /api/hyperfleet/v1/clusters/{cluster_id}/statuses',
        'adapter.preconditions',
        'adapter.decide',
        'cloudtasks.CreateTask',
      ]),
    );
    const getCluster = children.find((s) => s.name === CLUSTER_ROUTE)!;
    expect(getCluster).toMatchObject({
      kind: KIND.client,
      attributes: {
        'http.request.method': 'GET',
        'url.template': '/api/hyperfleet/v1/clusters/{cluster_id}',
        'http.response.status_code': 200,
      },
    });
    const createTask = children.find((s) => s.name === 'cloudtasks.CreateTask')!;
    expect(createTask).toMatchObject({
      kind: KIND.client,
      attributes: { 'hyperfleet.cluster.id': id },
    });
    const execution = await executionOf(id);

    // The execution continues the CreateTask span (its TRACEPARENT override travels in the task);
    // the API request names its own CLIENT span.
    expect(execution.env.TRACEPARENT).toBe(`00-${TRACE}-${createTask.spanId}-01`);
    expect(execution.env.TRACESTATE).toBe(TRACESTATE);
    expect(clusterRequest(id)?.headers).toMatchObject({
      traceparent: `00-${TRACE}-${getCluster.spanId}-01`,
      tracestate: TRACESTATE,
    });

    // Every line of the reconcile carries the trace and the span it was written in.
    const lines = await linesOf(on, id);
    expect(lines.length).toBeGreaterThan(2);
    const spanIds = new Set(spans.map((s) => s.spanId));
    for (const line of lines) {
      expect(line).toMatchObject(traced(TRACE));
      expect(spanIds.has(String(line['logging.googleapis.com/spanId']))).toBe(true);
    }

    // No pull secret in any exported span (names, attributes, resource) or log line.
    expect(leaks(on.receiver.bodies.join('\n'), [canary])).toEqual([]);
    expect(leaks(fs.readFileSync(on.log, 'utf8'), [canary])).toEqual([]);
  });

  it('starts a new trace when the event carries no valid traceparent', async () => {
    const on = adapters.on;
    const { id } = seedReadyCluster(hyperfleet, { name: 'traced-new' });
    expect(await pushPubSub(on.url, { ...sentinelEvent(id, 1), traceparent: 'not-valid' })).toBe(
      204,
    );
    const root = on.receiver
      .spans()
      .find((s) => s.name === 'adapter.handle' && s.attributes['hyperfleet.cluster.id'] === id)!;
    expect(root.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(root.traceId).not.toBe(TRACE);
    expect(root.parentSpanId).toBeUndefined();
    expect((await executionOf(id)).env.TRACEPARENT).toMatch(
      new RegExp(`^00-${root.traceId}-[0-9a-f]{16}-01$`),
    );
    const lines = await linesOf(on, id);
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(line).toMatchObject(traced(root.traceId));
  });

  it("never continues the delivery's unsampled traceparent header (Cloud Run's front end sets one): a new, exported trace", async () => {
    const on = adapters.on;
    const { id } = seedReadyCluster(hyperfleet, { name: 'traced-header' });
    const frontEnd = `00-${'c'.repeat(32)}-${'d'.repeat(16)}-00`;
    // Binary mode, as Eventarc delivers: functions-framework copies the HTTP traceparent header
    // into the CloudEvent's traceparent extension. Sentinel's event carries none.
    const response = await fetch(on.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'ce-specversion': '1.0',
        'ce-type': 'google.cloud.pubsub.topic.v1.messagePublished',
        'ce-source':
          '//pubsub.googleapis.com/projects/demo-project/topics/hyperfleet-system-clusters',
        'ce-id': `m-${id}`,
        traceparent: frontEnd,
      },
      body: JSON.stringify({
        message: { data: Buffer.from(JSON.stringify(sentinelEvent(id, 1))).toString('base64') },
        subscription: 'projects/demo-project/subscriptions/pullsecret-adapter',
      }),
    });
    await response.text();
    expect(response.status).toBe(204);
    const root = on.receiver
      .spans()
      .find((s) => s.name === 'adapter.handle' && s.attributes['hyperfleet.cluster.id'] === id);
    expect(root).toBeDefined();
    expect(root!.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(root!.traceId).not.toBe('c'.repeat(32));
    expect(root!.parentSpanId).toBeUndefined();
  });

  it('a failing export is one warning and never fails the event', async () => {
    const on = adapters.on;
    const answeredBefore = on.receiver.answered.length;
    on.receiver.answerStatus = 400;
    for (const name of ['export-fails-1', 'export-fails-2']) {
      const { id } = seedReadyCluster(hyperfleet, { name });
      expect(await pushPubSub(on.url, sentinelEvent(id, 1))).toBe(204);
      expect(await executionOf(id)).toBeDefined();
    }
    // Each event's flush precedes its answer: both exports were refused by now.
    const refused = on.receiver.answered.slice(answeredBefore).filter((s) => s === 400);
    expect(refused.length).toBeGreaterThanOrEqual(2);
    on.receiver.answerStatus = 200;
    // The log lands asynchronously, in order: once a later event's lines are there, so is any
    // warning the two failures caused.
    const { id: later } = seedReadyCluster(hyperfleet, { name: 'export-works-again' });
    expect(await pushPubSub(on.url, sentinelEvent(later, 1))).toBe(204);
    await linesOf(on, later);
    const warnings = entries(on).filter(
      (e) => e.message === 'Exporting trace spans failed; they are dropped (the work goes on)',
    );
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).toContain('"http_status":400');
    // Written from the batch timer of some event: it must not join that event's trace group.
    expect(warnings[0]).not.toHaveProperty(['logging.googleapis.com/trace']);
    expect(warnings[0]).not.toHaveProperty(['logging.googleapis.com/spanId']);
  });
});
