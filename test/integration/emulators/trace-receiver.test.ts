import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { startTraceReceiver, type TraceReceiver } from '../../../emulators/traces/receiver';
import { readClusterIndex, readTrace } from '../../../emulators/traces/trace-reader';
import { findTrace } from '../../../emulators/pullsecret/traces/trace-view';

let dir: string;
let receiver: TraceReceiver;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'traces-'));
  receiver = await startTraceReceiver({ dir, maxBodyBytes: 64 * 1024 });
});
afterAll(async () => {
  await receiver.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Spans made by the real SDK for one service (kept in memory, then exported on demand). */
function record(
  service: string,
  make: (tracer: ReturnType<BasicTracerProvider['getTracer']>) => void,
) {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  make(provider.getTracer('test'));
  return memory.getFinishedSpans();
}

/** Exports with the real OTLP/HTTP JSON exporter (env: e.g. OTEL_EXPORTER_OTLP_TRACES_COMPRESSION). */
async function exportSpans(
  spans: ReadableSpan[],
  env: Record<string, string> = {},
): Promise<ExportResult> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    const exporter = new OTLPTraceExporter({ url: `${receiver.endpoint}/v1/traces` });
    const result = await new Promise<ExportResult>((resolve) => exporter.export(spans, resolve));
    await exporter.shutdown();
    return result;
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}

const post = (
  body: string | Buffer,
  headers: Record<string, string> = {},
  pathname = '/v1/traces',
) =>
  fetch(`${receiver.endpoint}${pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });

const span = (traceId: string, spanId: string, extra: Record<string, unknown> = {}) => ({
  traceId,
  spanId,
  name: 'raw',
  kind: 1,
  startTimeUnixNano: '1763900000000000000',
  endTimeUnixNano: 1763900000001000000,
  ...extra,
});
const request = (...spans: Record<string, unknown>[]) =>
  JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'raw-client' } }] },
        scopeSpans: [{ scope: { name: 'raw' }, spans }],
      },
    ],
  });

describe('the OTLP/HTTP JSON trace receiver, driven by the real OpenTelemetry exporter', () => {
  it('stores every span of a trace flattened in one file, and indexes it under the cluster it names', async () => {
    const spans = record('pullsecret-adapter', (tracer) => {
      const root = tracer.startSpan('adapter.handle', {
        kind: SpanKind.CONSUMER,
        attributes: {
          'hyperfleet.cluster.id': 'cluster-a',
          'hyperfleet.cluster.generation': 3,
          'pullsecret.decision': 'launch',
          retried: false,
          tags: ['a', 'b'],
        },
      });
      const child = tracer.startSpan(
        'cloudrun.RunJob',
        { kind: SpanKind.CLIENT },
        trace.setSpan(ROOT_CONTEXT, root),
      );
      child.setStatus({ code: SpanStatusCode.ERROR, message: 'UNAVAILABLE' });
      child.end();
      root.end();
    });
    const result = await exportSpans(spans);
    expect(result.error?.message).toBeUndefined();
    expect(result.code).toBe(ExportResultCode.SUCCESS);

    const traceId = spans[0]!.spanContext().traceId;
    const stored = readTrace(dir, traceId);
    expect(stored.map((s) => [s.name, s.kind, s.service])).toEqual([
      ['cloudrun.RunJob', 'CLIENT', 'pullsecret-adapter'],
      ['adapter.handle', 'CONSUMER', 'pullsecret-adapter'],
    ]);
    const [launch, handle] = stored;
    expect(launch!.parentSpanId).toBe(handle!.spanId);
    expect(handle!.parentSpanId).toBeUndefined();
    expect(launch!.status).toEqual({ code: 'ERROR', message: 'UNAVAILABLE' });
    expect(handle!.attributes).toMatchObject({
      'hyperfleet.cluster.id': 'cluster-a',
      'hyperfleet.cluster.generation': 3,
      retried: false,
      tags: ['a', 'b'],
    });
    expect(BigInt(handle!.endUnixNano)).toBeGreaterThanOrEqual(BigInt(handle!.startUnixNano));
    expect(readClusterIndex(dir, 'cluster-a').map((e) => [e.traceId, e.name])).toEqual([
      [traceId, 'adapter.handle'],
    ]);
    expect(findTrace(dir, { clusterId: 'cluster-a' })?.traceId).toBe(traceId);
    // Only the owner reads what the stack wrote (span attributes may name clusters and projects).
    expect(fs.statSync(path.join(dir, `${traceId}.jsonl`)).mode & 0o077).toBe(0);
  });

  it('accepts gzip from the exporter (OTEL_EXPORTER_OTLP_TRACES_COMPRESSION=gzip) and from a raw client', async () => {
    const spans = record('pullsecret-job', (tracer) => tracer.startSpan('job.run').end());
    const result = await exportSpans(spans, { OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: 'gzip' });
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    expect(readTrace(dir, spans[0]!.spanContext().traceId).map((s) => s.name)).toEqual(['job.run']);

    const traceId = 'ab'.repeat(16);
    const answer = await post(zlib.gzipSync(request(span(traceId, '01'.repeat(8)))), {
      'content-encoding': 'gzip',
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({});
    expect(readTrace(dir, traceId)).toHaveLength(1);
  });

  it('answers an empty request with success, and a span without ids with partialSuccess', async () => {
    const empty = await post('{}');
    expect([empty.status, empty.headers.get('content-type'), await empty.json()]).toEqual([
      200,
      'application/json',
      {},
    ]);
    const traceId = 'cd'.repeat(16);
    const partial = await post(
      request(
        span(traceId, '02'.repeat(8)),
        span('0'.repeat(32), '03'.repeat(8)),
        span(traceId, ''),
      ),
    );
    expect(partial.status).toBe(200);
    expect(await partial.json()).toEqual({
      partialSuccess: {
        rejectedSpans: '2',
        errorMessage: expect.stringMatching(/traceId or spanId/),
      },
    });
    expect(readTrace(dir, traceId).map((s) => s.spanId)).toEqual(['02'.repeat(8)]);
  });
});

describe('what the receiver refuses, as an OTLP/HTTP endpoint does (a google.rpc.Status body)', () => {
  it('415 for binary protobuf, saying to export OTLP/HTTP JSON', async () => {
    const answer = await post(Buffer.from([0x0a, 0x00]), {
      'content-type': 'application/x-protobuf',
    });
    expect(answer.status).toBe(415);
    const body = (await answer.json()) as { code: number; message: string };
    expect(body.message).toContain('application/x-protobuf (binary protobuf) is not supported');
    expect(body.message).toContain('OTEL_EXPORTER_OTLP_PROTOCOL=http/json');
  });

  it.each([
    [{ 'content-type': 'text/plain' }, /Content-Type text\/plain is not supported/],
    [{ 'content-encoding': 'br' }, /Content-Encoding br is not supported: send gzip/],
  ])('415 for %j', async (headers, message) => {
    const answer = await post('{}', headers);
    expect(answer.status).toBe(415);
    expect(((await answer.json()) as { message: string }).message).toMatch(message);
  });

  it('400 Bad Data for JSON that does not parse, gzip that does not inflate, or the wrong shape', async () => {
    const broken = await post('{"resourceSpans": [');
    expect(broken.status).toBe(400);
    expect(await broken.json()).toEqual({
      code: 3,
      message: expect.stringMatching(
        /^The body is not valid JSON \(.+\); send a JSON-encoded ExportTraceServiceRequest\.$/,
      ),
    });

    const gzip = await post('not gzip', { 'content-encoding': 'gzip' });
    expect(gzip.status).toBe(400);
    expect(((await gzip.json()) as { message: string }).message).toMatch(/not valid gzip/);

    const base64Ids = await post(request(span('S/kvNXezTaajzpKdDg5HNg==', '01'.repeat(8))));
    expect(base64Ids.status).toBe(400);
    expect(await base64Ids.json()).toEqual({
      code: 3,
      message: expect.stringContaining('resourceSpans.0.scopeSpans.0.spans.0.traceId'),
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.BadRequest',
          fieldViolations: [
            {
              field: 'resourceSpans.0.scopeSpans.0.spans.0.traceId',
              description: 'must be 32 hex digits (OTLP/JSON ids are hex, not base64)',
            },
          ],
        },
      ],
    });
    const notAList = await post('{"resourceSpans": "x"}');
    expect(notAList.status).toBe(400);
  });

  it('413 for a body over the limit, compressed or once inflated', async () => {
    const big = await post(`{"padding":"${'x'.repeat(70 * 1024)}"}`);
    expect(big.status).toBe(413);
    expect(((await big.json()) as { message: string }).message).toMatch(/larger than 65536 bytes/);
    const bomb = zlib.gzipSync(`{"padding":"${'x'.repeat(200 * 1024)}"}`);
    expect(bomb.length).toBeLessThan(64 * 1024);
    const inflated = await post(bomb, { 'content-encoding': 'gzip' });
    expect(inflated.status).toBe(413);
    expect(((await inflated.json()) as { message: string }).message).toMatch(/decompressed body/);
  });

  it('503 (which exporters retry) when spans cannot be stored, and stores again once it can', async () => {
    const gone = fs.mkdtempSync(path.join(os.tmpdir(), 'traces-gone-'));
    const fragile = await startTraceReceiver({ dir: gone });
    fs.rmSync(gone, { recursive: true, force: true });
    const body = request(span('ef'.repeat(16), '04'.repeat(8)));
    const send = () =>
      fetch(`${fragile.endpoint}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
    const failed = await send();
    expect(failed.status).toBe(503);
    expect(await failed.json()).toEqual({
      code: 14,
      message: `Could not store spans in ${gone}: ENOENT.`,
    });
    fs.mkdirSync(path.join(gone, 'clusters'), { recursive: true });
    expect((await send()).status).toBe(200);
    expect(readTrace(gone, 'ef'.repeat(16))).toHaveLength(1);
    await fragile.close();
    fs.rmSync(gone, { recursive: true, force: true });
  });

  it('404 for another path, 405 (Allow: POST) for another method', async () => {
    const metrics = await post('{}', {}, '/v1/metrics');
    expect(metrics.status).toBe(404);
    expect(((await metrics.json()) as { message: string }).message).toContain('POST /v1/traces');
    const get = await fetch(`${receiver.endpoint}/v1/traces`);
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
  });
});
