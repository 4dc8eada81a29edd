// Issue 18, the reporter's part of one reconcile's trace: the reporter bundle, run by
// functions-framework as in Cloud Run with export on to an in-test OTLP/HTTP receiver, continues
// the job's publish span named by the result message's `traceparent` attribute; the status write
// (the client's CLIENT span, and the `traceparent` header the HyperFleet emulator receives) belongs
// to the same trace, and the spans are flushed before the delivery is answered. A report without
// one (a late report from an execution that never published) starts its own trace.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ReadyProcess } from '../../../emulators/common/child-process';
import { freePort } from '../../../emulators/common/free-port';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import { startFunctionProcess } from '../../../emulators/pullsecret/stack/function-process';
import { RESULT_MESSAGE_TYPE, type JobResult } from '../../../shared/job-result';
import { TRACE_ATTRIBUTES } from '../../../shared/tracing/attributes';
import { parseTraceparent } from '../../../shared/tracing/traceparent';
import { TEST_JOB } from '../../helpers/cloud-run';
import { hyperFleetClient, readySpec } from '../../helpers/hyperfleet';
import { OtlpTestReceiver } from '../../helpers/otlp-test-receiver';
import { RecordingProxy } from '../../helpers/recording-proxy';
import { ROOT } from '../../helpers/run-process';

// OTLP SpanKind values.
const SPAN_KIND = { client: 3, consumer: 5 } as const;
const PLATFORM = 'platform-project';
const JOB_TRACE = '0af7651916cd43dd8448eb211c80319c';
const PUBLISH_SPAN = 'b7ad6b7169203331';

const single = <T>(items: readonly T[], predicate: (item: T) => boolean, what: string): T => {
  const found = items.filter(predicate);
  expect({ what, count: found.length }).toEqual({ what, count: 1 });
  return found[0]!;
};

describe("reporter: reporter.handle continues the job's publish span, and the status write follows", () => {
  let hyperfleet: HyperFleetApiEmulator;
  let tap: RecordingProxy;
  let otlp: OtlpTestReceiver;
  let reporter: ReadyProcess | undefined;
  let url = '';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reporter-tracing-'));
  const log = path.join(dir, 'reporter.log');

  beforeAll(async () => {
    [hyperfleet, otlp] = await Promise.all([
      startHyperFleetApiEmulator(),
      OtlpTestReceiver.start(),
    ]);
    tap = await RecordingProxy.start(hyperfleet.baseUrl);
    const port = await freePort();
    reporter = await startFunctionProcess({
      root: ROOT,
      target: 'reporter',
      port,
      logFile: log,
      env: {
        PATH: process.env.PATH,
        METADATA_SERVER_DETECTION: 'none',
        HYPERFLEET_API_BASE_URL: tap.baseUrl,
        PULL_SECRET_JOB: TEST_JOB,
        CLOUD_RUN_EMULATOR_HOST: '127.0.0.1:1',
        GOOGLE_CLOUD_PROJECT: PLATFORM,
        LOG_FORMAT: 'json',
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      },
    });
    url = `http://127.0.0.1:${port}`;
  }, 60_000);
  afterAll(async () => {
    await reporter?.stop();
    await Promise.all([hyperfleet?.stop(), tap?.stop(), otlp?.stop()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const newCluster = async (name: string) =>
    (await hyperFleetClient(hyperfleet).createCluster({ name, spec: readySpec() })).id;
  const result = (clusterId: string): JobResult => ({
    outcome: 'succeeded',
    operation: 'apply',
    dry_run: false,
    cluster_id: clusterId,
    generation: 1,
    execution: `pullsecret-job-${clusterId.slice(0, 8)}`,
    attempt: 1,
    phases: ['secret-manager'],
    reason: 'PullSecretProvisioned',
    message: 'Pull secret stored',
    secret_manager: {
      secret_path: `projects/demo-project/secrets/hyperfleet-${clusterId}-pull-secret`,
      secret: 'created',
      version: 'added',
      version_name: `projects/demo-project/secrets/hyperfleet-${clusterId}-pull-secret/versions/1`,
      verified: true,
      destroyed_versions: [],
    },
    durations_ms: { total: 1000 },
    started_at: new Date(Date.now() - 1000).toISOString(),
    finished_at: new Date().toISOString(),
  });

  /** A push delivery of the result message; answered once the reporter is done with it. */
  const deliver = async (value: JobResult, trace: Record<string, string>) => {
    const response = await fetch(`${url}/projects/demo-project/topics/pullsecret-job-results`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        message: {
          data: Buffer.from(JSON.stringify(value)).toString('base64'),
          attributes: {
            type: RESULT_MESSAGE_TYPE,
            cluster_id: value.cluster_id,
            outcome: value.outcome,
            ...trace,
          },
          messageId: `m-${value.cluster_id}`,
          publishTime: new Date().toISOString(),
        },
        subscription: 'projects/demo-project/subscriptions/results',
      }),
    });
    await response.text();
    expect(response.status).toBe(204);
  };

  /** The reporter's "Reported ..." JSON log line for a cluster (lines land asynchronously). */
  const reportedLine = async (clusterId: string) => {
    for (let i = 0; i < 50; i++) {
      const line = fs
        .readFileSync(log, 'utf8')
        .split('\n')
        .filter((text) => text.startsWith('{') && text.includes(clusterId))
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .find((entry) => String(entry.message).startsWith('Reported'));
      if (line) return line;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no "Reported" line for ${clusterId} in ${log}`);
  };

  it("is the child of the message's traceparent; the HyperFleet CLIENT span and request header carry the same trace", async () => {
    const clusterId = await newCluster('trace-reporter');
    await deliver(result(clusterId), {
      traceparent: `00-${JOB_TRACE}-${PUBLISH_SPAN}-01`,
      tracestate: 'vendor=a1',
    });

    // Flushed before the delivery was answered: the spans are already here.
    const spans = otlp.spans().filter((s) => s.traceId === JOB_TRACE);
    const handle = single(spans, (s) => s.name === 'reporter.handle', 'reporter.handle');
    expect(handle).toMatchObject({
      parentSpanId: PUBLISH_SPAN,
      kind: SPAN_KIND.consumer,
      serviceName: 'pullsecret-reporter',
    });
    expect(handle.attributes).toMatchObject({
      [TRACE_ATTRIBUTES.clusterId]: clusterId,
      [TRACE_ATTRIBUTES.generation]: 1,
      [TRACE_ATTRIBUTES.outcome]: 'succeeded',
      [TRACE_ATTRIBUTES.reason]: 'PullSecretProvisioned',
      [TRACE_ATTRIBUTES.decision]: 'report-succeeded',
    });
    const write = single(
      spans,
      (s) => s.kind === SPAN_KIND.client && /^PUT .*\/statuses$/.test(s.name),
      'status write',
    );
    expect(write.parentSpanId).toBe(handle.spanId);

    const request = single(
      tap.requests,
      (r) => r.method === 'PUT' && r.path.endsWith(`/clusters/${clusterId}/statuses`),
      'PUT request',
    );
    expect(parseTraceparent(request.headers.traceparent as string | undefined)).toEqual({
      traceId: JOB_TRACE,
      spanId: write.spanId,
      sampled: true,
    });
    expect(request.headers.tracestate).toBe('vendor=a1');

    // Its log line names the trace (Cloud Logging groups it with the job's and the adapter's).
    expect((await reportedLine(clusterId))['logging.googleapis.com/trace']).toBe(
      `projects/${PLATFORM}/traces/${JOB_TRACE}`,
    );
  });

  it('without a traceparent (an execution that never published) starts a new trace, the status write inside it', async () => {
    const clusterId = await newCluster('trace-reporter-late');
    const before = new Set(otlp.spans().map((s) => s.spanId));
    await deliver(result(clusterId), {});

    const fresh = otlp.spans().filter((s) => !before.has(s.spanId));
    const handle = single(fresh, (s) => s.name === 'reporter.handle', 'reporter.handle');
    expect(handle.parentSpanId).toBeUndefined();
    expect(handle.traceId).not.toBe(JOB_TRACE);
    const write = single(
      fresh,
      (s) => s.kind === SPAN_KIND.client && s.name.startsWith('PUT '),
      'status write',
    );
    expect(write).toMatchObject({ traceId: handle.traceId, parentSpanId: handle.spanId });
    const requests = tap.requests.filter(
      (r) => r.method === 'PUT' && r.path.endsWith(`/clusters/${clusterId}/statuses`),
    );
    expect(
      requests.map((r) => parseTraceparent(r.headers.traceparent as string | undefined)?.traceId),
    ).toEqual([handle.traceId]);
  });
});
