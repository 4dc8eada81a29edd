// Issue 18, the job's part of one reconcile's trace: the real job bundle against the Secret
// Manager, Kubernetes and Pub/Sub emulators, exporting over OTLP/HTTP JSON to a receiver in the
// test. The execution continues the adapter's launch span (TRACEPARENT), names its phases, and hands
// its publish span to the reporter in the result message's attributes; no secret leaves in a span.
import { spawn } from 'node:child_process';
import net, { type AddressInfo } from 'node:net';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import {
  startPubSubEmulator,
  type PubSubEmulator,
} from '../../../emulators/pubsub/pubsub-emulator';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { EXIT_CODES, RESULT_MESSAGE_TYPE, STARTED_MESSAGE_TYPE } from '../../../shared/job-result';
import { TRACE_ATTRIBUTES } from '../../../shared/tracing/attributes';
import { parseTraceparent } from '../../../shared/tracing/traceparent';
import { canaryPullSecret, leaks } from '../../helpers/canary';
import { runJob } from '../../helpers/job';
import { JOB_CLI } from '../../helpers/run-process';
import { moduleLoadRecorder, sdkChunkOf } from '../../helpers/module-loads';
import { OtlpTestReceiver, type ReceivedSpan } from '../../helpers/otlp-test-receiver';
import { waitFor } from '../../helpers/wait-for';

const PROJECT = 'demo-project';
const PLATFORM = 'platform-project';
const TOPIC = `projects/${PROJECT}/topics/pullsecret-job-results`;
const SUBSCRIPTION = `projects/${PROJECT}/subscriptions/results-tap`;
/** The ids of the clusters the runs below write for; each writes to its own clusters-{id}. */
const CLUSTER_IDS = [
  'cls-trace',
  'cls-trace-fail',
  'cls-trace-cfg',
  'cls-trace-term',
  'cls-trace-bad',
  'cls-trace-off',
  'cls-trace-hang',
];
const nsOf = (clusterId: string) => `clusters-${clusterId}`;
// The adapter's launch span, as it would pass it (sampled).
// OTLP SpanKind values.
const SPAN_KIND = { internal: 1, producer: 4 } as const;
const LAUNCH_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const LAUNCH_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${LAUNCH_TRACE}-${LAUNCH_SPAN}-01`;

interface Pulled {
  receivedMessages?: {
    ackId: string;
    message: { data: string; attributes?: Record<string, string> };
  }[];
}

describe("pull secret job: one trace from the adapter's launch span to the result message", () => {
  let sm: SecretManagerEmulator;
  let kube: KubeApiServerEmulator;
  let pubsub: PubSubEmulator;
  let otlp: OtlpTestReceiver;

  const pubsubRest = async (method: string, path: string, body: unknown): Promise<unknown> => {
    const response = await fetch(`http://${pubsub.endpoint}/v1/${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok)
      throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  /** The messages published since the last call (acknowledged): the results, and the start reports. */
  const published = async () => {
    const pulled = (await pubsubRest('POST', `${SUBSCRIPTION}:pull`, {
      maxMessages: 10,
    })) as Pulled;
    const messages = pulled.receivedMessages ?? [];
    if (messages.length > 0)
      await pubsubRest('POST', `${SUBSCRIPTION}:acknowledge`, {
        ackIds: messages.map((m) => m.ackId),
      });
    const all = messages.map((m) => m.message);
    return {
      results: all.filter((m) => m.attributes?.type === RESULT_MESSAGE_TYPE),
      started: all.filter((m) => m.attributes?.type === STARTED_MESSAGE_TYPE),
    };
  };

  beforeAll(async () => {
    [sm, kube, pubsub, otlp] = await Promise.all([
      startSecretManagerEmulator(),
      startKubeApiServerEmulator({ namespaces: CLUSTER_IDS.map(nsOf) }),
      startPubSubEmulator(),
      OtlpTestReceiver.start(),
    ]);
    await pubsubRest('PUT', TOPIC, {});
    await pubsubRest('PUT', SUBSCRIPTION, { topic: TOPIC });
  }, 90_000);
  afterAll(async () => {
    await Promise.all([sm?.stop(), kube?.stop(), pubsub?.stop(), otlp?.stop()]);
  });

  const env = (clusterId: string, pullSecret: string) => ({
    SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
    PUBSUB_EMULATOR_HOST: pubsub.endpoint,
    RESULTS_TOPIC: TOPIC,
    KUBECONFIG: kube.kubeconfigPath,
    MANAGEMENT_NAMESPACE: nsOf(clusterId),
    GCP_PROJECT_ID: PROJECT,
    GOOGLE_CLOUD_PROJECT: PLATFORM,
    CLUSTER_ID: clusterId,
    GENERATION: '3',
    CLOUD_RUN_EXECUTION: `pullsecret-job-${clusterId}`,
    PULL_SECRET_DATA: pullSecret,
  });
  const exporting = () => ({
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
  });
  const pick = (span: ReceivedSpan) => ({
    statusCode: span.statusCode,
    reason: span.attributes[TRACE_ATTRIBUTES.reason],
  });
  const spansOf = (traceId: string) => otlp.spans().filter((s) => s.traceId === traceId);
  const named = (spans: readonly ReceivedSpan[], name: string) => {
    const found = spans.filter((s) => s.name === name);
    expect({ name, count: found.length }).toEqual({ name, count: 1 });
    return found[0]!;
  };

  it('continues TRACEPARENT: job.run and its phases in one trace, the publish span handed on in the message', async () => {
    const canary = canaryPullSecret('trace-job');
    const loads = moduleLoadRecorder();
    const run = await runJob({
      ...env('cls-trace', canary.text),
      ...exporting(),
      ...loads.env,
      TRACEPARENT,
      TRACESTATE: 'vendor=a1',
    });
    expect(run.code).toBe(EXIT_CODES.success);
    // Export on: the SDK chunk is loaded (the control for the export-off case below).
    expect(loads.loaded()).toContain(sdkChunkOf('pull-secret-job'));
    loads.dispose();
    // shutdown() flushed before the process exited: every span is already here.
    const spans = spansOf(LAUNCH_TRACE);
    const root = named(spans, 'job.run');
    expect(root).toMatchObject({
      parentSpanId: LAUNCH_SPAN,
      serviceName: 'pullsecret-job',
      kind: SPAN_KIND.internal,
    });
    expect(root.attributes).toMatchObject({
      [TRACE_ATTRIBUTES.clusterId]: 'cls-trace',
      [TRACE_ATTRIBUTES.generation]: 3,
      [TRACE_ATTRIBUTES.outcome]: 'succeeded',
      [TRACE_ATTRIBUTES.reason]: 'PullSecretProvisioned',
      [TRACE_ATTRIBUTES.managementCluster]: 'default',
      [TRACE_ATTRIBUTES.execution]: 'pullsecret-job-cls-trace',
    });
    for (const phase of [
      'job.resolve',
      'secretmanager.sync',
      'kubernetes.sync',
      'pubsub.publish_started',
      'pubsub.publish_result',
    ])
      expect({ phase, parent: named(spans, phase).parentSpanId }).toEqual({
        phase,
        parent: root.spanId,
      });
    expect(named(spans, 'kubernetes.sync').attributes[TRACE_ATTRIBUTES.managementCluster]).toBe(
      'default',
    );
    const publish = named(spans, 'pubsub.publish_result');
    expect(publish.kind).toBe(SPAN_KIND.producer);
    expect(spans.every((s) => s.statusCode !== 2)).toBe(true);

    // The reporter's parent: the publish span, in the message attributes (tracestate passed on).
    const { results, started } = await published();
    expect(results[0]?.attributes).toMatchObject({
      traceparent: `00-${LAUNCH_TRACE}-${publish.spanId}-01`,
      tracestate: 'vendor=a1',
    });
    // The start report likewise, from its own span.
    expect(started[0]?.attributes).toMatchObject({
      traceparent: `00-${LAUNCH_TRACE}-${named(spans, 'pubsub.publish_started').spanId}-01`,
    });

    // Logs inside the run name the trace in the platform project (where Cloud Logging files them).
    const traced = run.lines.filter((line) => line['logging.googleapis.com/trace']);
    expect(traced.length).toBeGreaterThan(0);
    for (const line of traced)
      expect(line['logging.googleapis.com/trace']).toBe(
        `projects/${PLATFORM}/traces/${LAUNCH_TRACE}`,
      );

    // The result line, written after job.run ended and tracing stopped, still names job.run.
    expect(run.lines[run.lines.length - 1]).toMatchObject({
      'logging.googleapis.com/trace': `projects/${PLATFORM}/traces/${LAUNCH_TRACE}`,
      'logging.googleapis.com/spanId': root.spanId,
      'logging.googleapis.com/trace_sampled': true,
    });

    // No form of the pull secret in any exported span (attributes, events, resource) or output.
    expect(leaks(otlp.bodies.join('\n'), [canary])).toEqual([]);
    expect(leaks(run.stdout + run.stderr, [canary])).toEqual([]);
  });

  it('a failed run marks job.run ERROR with the reason code; the message still carries the trace', async () => {
    sm.faults.add({ match: 'AddSecretVersion', status: 'PERMISSION_DENIED', message: 'denied' });
    const run = await runJob({
      ...env('cls-trace-fail', canaryPullSecret('trace-fail').text),
      ...exporting(),
      TRACEPARENT: `00-${'a'.repeat(32)}-${LAUNCH_SPAN}-01`,
    });
    expect(run.code).toBe(EXIT_CODES.permanent);
    const spans = spansOf('a'.repeat(32));
    const root = named(spans, 'job.run');
    expect(root).toMatchObject({
      statusCode: 2,
      attributes: expect.objectContaining({
        [TRACE_ATTRIBUTES.outcome]: 'failed',
        [TRACE_ATTRIBUTES.reason]: run.result.reason,
      }),
    });
    expect(named(spans, 'secretmanager.sync').statusCode).toBe(2);
    const [message] = (await published()).results;
    expect(parseTraceparent(message?.attributes?.traceparent)?.traceId).toBe('a'.repeat(32));
  });

  it("a configuration failure's result line names the launch span of a valid TRACEPARENT", async () => {
    const traceId = 'c'.repeat(32);
    const { CLUSTER_ID: _omitted, ...withoutCluster } = env('cls-trace-cfg', 'unused');
    const run = await runJob({
      ...withoutCluster,
      ...exporting(),
      TRACEPARENT: `00-${traceId}-${LAUNCH_SPAN}-00`,
    });
    expect(run.code).toBe(EXIT_CODES.configuration);
    expect(run.lines[run.lines.length - 1]).toMatchObject({
      'logging.googleapis.com/trace': `projects/${PLATFORM}/traces/${traceId}`,
      'logging.googleapis.com/spanId': LAUNCH_SPAN,
      'logging.googleapis.com/trace_sampled': false,
    });
    // Without a valid TRACEPARENT there is no trace to name.
    const untraced = await runJob({ ...withoutCluster, TRACEPARENT: 'not-a-traceparent' });
    expect(untraced.code).toBe(EXIT_CODES.configuration);
    expect(Object.keys(untraced.lines[untraced.lines.length - 1]!)).not.toContain(
      'logging.googleapis.com/trace',
    );
  });

  it('SIGTERM during a held Kubernetes phase ends job.run and the phase as Terminated, exports them and exits 143', async () => {
    const traceId = 'd'.repeat(32);
    // Hold the Kubernetes phase's first request to the namespace far beyond the test.
    for (const method of ['GET', 'POST', 'PATCH', 'PUT'])
      kube.faults.add({
        match: `${method} /api/v1/namespaces/${nsOf('cls-trace-term')}`,
        delayMs: 60_000,
      });
    const child = spawn(process.execPath, [JOB_CLI, 'run-job', 'pull-secret'], {
      env: {
        PATH: process.env.PATH,
        METADATA_SERVER_DETECTION: 'none',
        RETRY_BASE_DELAY: '50ms',
        ...env('cls-trace-term', canaryPullSecret('trace-term').text),
        ...exporting(),
        TRACEPARENT: `00-${traceId}-${LAUNCH_SPAN}-01`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      // Signalled while the phase is held: the emulator is holding one of its requests now.
      await waitFor('the Kubernetes phase held by the emulator', () =>
        kube.faults.taken().some((f) => f.key.includes(`/namespaces/${nsOf('cls-trace-term')}`)),
      );
      child.kill('SIGTERM');
      // The job's own handler exits (how soon after the signal is `npm run bench`'s timing
      // section); without it the held request would keep the process for a minute.
      const code = await Promise.race([
        exited,
        new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 30_000)),
      ]);
      expect({ code, stdout, stderr }).toMatchObject({ code: 143 });
    } finally {
      child.kill('SIGKILL');
      kube.faults.clear();
    }
    const spans = spansOf(traceId);
    for (const name of ['job.run', 'kubernetes.sync'])
      expect({ name, ...pick(named(spans, name)) }).toEqual({
        name,
        statusCode: 2,
        reason: 'Terminated',
      });
    expect(named(spans, 'secretmanager.sync').statusCode).not.toBe(2);
    // The result line says so, filed under job.run; no result was published (the reporter reads a
    // killed execution's failure from Cloud Run), only the start report.
    const last = JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>;
    expect(last).toMatchObject({
      'logging.googleapis.com/trace': `projects/${PLATFORM}/traces/${traceId}`,
      'logging.googleapis.com/spanId': named(spans, 'job.run').spanId,
      pullsecret_job_result: { outcome: 'failed', reason: 'Terminated', failure_kind: 'transient' },
    });
    expect(spans.map((s) => s.name)).not.toContain('pubsub.publish_result');
  }, 60_000);

  it('an invalid TRACEPARENT is a warning, never a failure: the run starts its own trace', async () => {
    const before = new Set(otlp.spans().map((s) => s.spanId));
    const run = await runJob({
      ...env('cls-trace-bad', canaryPullSecret('trace-bad').text),
      ...exporting(),
      TRACEPARENT: 'not-a-traceparent',
    });
    expect(run.code).toBe(EXIT_CODES.success);
    expect(
      run.lines.some((line) =>
        String(line.message).includes('TRACEPARENT is not a W3C traceparent'),
      ),
    ).toBe(true);
    const root = named(
      otlp.spans().filter((s) => !before.has(s.spanId)),
      'job.run',
    );
    expect(root.parentSpanId).toBeUndefined();
    const [message] = (await published()).results;
    expect(parseTraceparent(message?.attributes?.traceparent)?.traceId).toBe(root.traceId);
  });

  it('with export off (the default) no span is sent, yet the trace id still travels to the reporter', async () => {
    const received = otlp.bodies.length;
    const loads = moduleLoadRecorder();
    const run = await runJob({
      ...env('cls-trace-off', canaryPullSecret('trace-off').text),
      ...loads.env,
      TRACEPARENT,
    });
    expect(run.code).toBe(EXIT_CODES.success);
    // Startup stays lazy: the bundle ran, its SDK chunk was never loaded.
    expect(loads.loaded()).toContain('/dist-bundle/pull-secret-job/main.mjs');
    expect(loads.loaded()).not.toContain(sdkChunkOf('pull-secret-job'));
    loads.dispose();
    const [message] = (await published()).results;
    expect(parseTraceparent(message?.attributes?.traceparent)).toEqual({
      traceId: LAUNCH_TRACE,
      spanId: LAUNCH_SPAN,
      sampled: true,
    });
    expect(otlp.bodies.length).toBe(received);
  });

  it('an OTLP endpoint that never answers never changes the outcome, and the run still ends', async () => {
    // Accepts connections and never answers: the worst a trace backend can do at shutdown.
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      // It ends by itself, the export bounded (runJob kills it after 60 s and fails: no result
      // line); by how much the hung endpoint delays the exit is `npm run bench`'s timing section.
      const run = await runJob({
        ...env('cls-trace-hang', canaryPullSecret('trace-hang').text),
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
        TRACEPARENT,
      });
      expect(run.code).toBe(EXIT_CODES.success);
      expect(run.result.outcome).toBe('succeeded');
      expect((await published()).results.length).toBe(1);
    } finally {
      sockets.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  }, 90_000);
});
