// The HyperFleet API emulator's side of a trace, against the emulator over HTTP: a SERVER span per
// request named after its route, the child of the caller's `traceparent`, and problem bodies whose
// `trace_id` is the caller's trace id, so a component's log line and the API's error meet.
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import { readySpec } from '../../helpers/hyperfleet';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE}-${PARENT}-01`;
const SYSTEM = { 'X-HyperFleet-System': 'true', 'content-type': 'application/json' };
const BASE = '/api/hyperfleet/v1';

const memory = new InMemorySpanExporter();
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'hyperfleet-api' }),
  spanProcessors: [new SimpleSpanProcessor(memory)],
});
let traced: HyperFleetApiEmulator;
let untraced: HyperFleetApiEmulator;
let clusterId: string;

beforeAll(async () => {
  traced = await startHyperFleetApiEmulator({ tracer: provider.getTracer('hyperfleet-api') });
  // No tracer given and none registered: the global no-op one.
  untraced = await startHyperFleetApiEmulator();
  const created = await fetch(`${traced.baseUrl}${BASE}/clusters`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'Cluster', name: 'traced', spec: readySpec() }),
  });
  expect(created.status).toBe(201);
  clusterId = ((await created.json()) as { id: string }).id;
});
afterAll(async () => {
  await Promise.all([traced.stop(), untraced.stop()]);
  await provider.shutdown();
});
beforeEach(() => memory.reset());

/** The one span the emulator ended for the last request (it ends when the response closes). */
async function spanOf(): Promise<ReadableSpan> {
  for (let i = 0; i < 50 && memory.getFinishedSpans().length === 0; i++)
    await new Promise((r) => setTimeout(r, 10));
  const spans = memory.getFinishedSpans();
  expect(spans).toHaveLength(1);
  return spans[0]!;
}

describe('HyperFleet API emulator: a SERVER span per request, the child of its traceparent', () => {
  it('names the span after the route and records method, status code and the cluster id', async () => {
    const answer = await fetch(`${traced.baseUrl}${BASE}/clusters/${clusterId}`, {
      headers: { traceparent: TRACEPARENT },
    });
    expect(answer.status).toBe(200);
    const span = await spanOf();
    expect(span.name).toBe('GET /api/hyperfleet/v1/clusters/{cluster_id}');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.spanContext().traceId).toBe(TRACE);
    expect(span.parentSpanContext?.spanId).toBe(PARENT);
    expect(span.attributes).toEqual({
      'http.request.method': 'GET',
      'url.path': `${BASE}/clusters/${clusterId}`,
      'http.route': '/api/hyperfleet/v1/clusters/{cluster_id}',
      'http.response.status_code': 200,
      'hyperfleet.cluster.id': clusterId,
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("a status write is `PUT …/statuses` in the caller's trace", async () => {
    const answer = await fetch(`${traced.baseUrl}${BASE}/clusters/${clusterId}/statuses`, {
      method: 'PUT',
      headers: { ...SYSTEM, traceparent: TRACEPARENT },
      body: JSON.stringify({
        adapter: 'pullsecret',
        observed_generation: 1,
        observed_time: new Date().toISOString(),
        conditions: [
          { type: 'Available', status: 'False', reason: 'JobRunning', message: 'running' },
          { type: 'Applied', status: 'True', reason: 'JobLaunched', message: 'launched' },
          { type: 'Health', status: 'True', reason: 'Healthy', message: 'ok' },
        ],
      }),
    });
    expect(answer.status).toBe(201);
    const span = await spanOf();
    expect(span.name).toBe('PUT /api/hyperfleet/v1/clusters/{cluster_id}/statuses');
    expect([span.spanContext().traceId, span.parentSpanContext?.spanId]).toEqual([TRACE, PARENT]);
    expect(span.attributes['http.response.status_code']).toBe(201);
  });

  it("a problem's trace_id is the caller's trace id; a 4xx is not the server's error", async () => {
    const answer = await fetch(`${traced.baseUrl}${BASE}/clusters/no-such-cluster`, {
      headers: { traceparent: TRACEPARENT },
    });
    expect(answer.status).toBe(404);
    expect(((await answer.json()) as { trace_id: string }).trace_id).toBe(TRACE);
    const span = await spanOf();
    expect(span.attributes['http.response.status_code']).toBe(404);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('a 5xx ends the span with ERROR and error.type; its problem still carries the trace id', async () => {
    traced.faults.add({ match: `GET ${BASE}/clusters/${clusterId}`, status: 503 });
    const answer = await fetch(`${traced.baseUrl}${BASE}/clusters/${clusterId}`, {
      headers: { traceparent: TRACEPARENT },
    });
    expect(answer.status).toBe(503);
    expect(((await answer.json()) as { trace_id: string }).trace_id).toBe(TRACE);
    const span = await spanOf();
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['error.type']).toBe('503');
  });

  it('without a (valid) traceparent the span is a root, and problems carry its own trace id', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { traceparent: `00-${'0'.repeat(32)}-${PARENT}-01` },
    ]) {
      memory.reset();
      const answer = await fetch(`${traced.baseUrl}${BASE}/clusters/missing`, { headers });
      const body = (await answer.json()) as { trace_id: string };
      const span = await spanOf();
      expect(span.parentSpanContext).toBeUndefined();
      expect(body.trace_id).toBe(span.spanContext().traceId);
      expect(body.trace_id).not.toBe(TRACE);
    }
  });

  it('an unknown path is a span named by its method only (no route template to name it)', async () => {
    await fetch(`${traced.baseUrl}/api/hyperfleet/v2/clusters`, {
      headers: { traceparent: TRACEPARENT },
    });
    const span = await spanOf();
    expect(span.name).toBe('GET');
    expect(span.attributes['http.route']).toBeUndefined();
  });

  it('with tracing off, problems still carry the incoming trace id (else a random one)', async () => {
    const withParent = await fetch(`${untraced.baseUrl}${BASE}/clusters/missing`, {
      headers: { traceparent: TRACEPARENT },
    });
    expect(((await withParent.json()) as { trace_id: string }).trace_id).toBe(TRACE);
    const without = await fetch(`${untraced.baseUrl}${BASE}/clusters/missing`);
    expect(((await without.json()) as { trace_id: string }).trace_id).toMatch(/^[0-9a-f]{16}$/);
    expect(memory.getFinishedSpans()).toEqual([]);
  });
});
