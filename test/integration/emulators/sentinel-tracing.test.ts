// The Sentinel emulator with tracing on, against the HyperFleet API emulator: each published event
// carries the CloudEvents `traceparent` extension of its PRODUCER span `sentinel.publish` (the
// root of the reconcile's trace), and its polls start no traces of their own.
import { context, ProxyTracerProvider, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import { Sentinel } from '../../../emulators/pullsecret/sentinel/sentinel';
import { hyperFleetClient, readySpec } from '../../helpers/hyperfleet';

const memory = new InMemorySpanExporter();
const provider = (service: string, sampler?: ParentBasedSampler) =>
  new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
    ...(sampler ? { sampler } : {}),
  });
const sentinelProvider = provider('hyperfleet-sentinel');
// As the stack runs the API: it records only requests that continue a sampled trace.
const apiProvider = provider(
  'hyperfleet-api',
  new ParentBasedSampler({ root: new AlwaysOffSampler() }),
);
const contextManager = new AsyncLocalStorageContextManager();
let api: HyperFleetApiEmulator;

beforeAll(async () => {
  // As the emulator's process runs (startTracing): the context manager and a global provider,
  // which the HyperFleet client's CLIENT spans would go to if Sentinel's polls were traced.
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(sentinelProvider);
  api = await startHyperFleetApiEmulator({ tracer: apiProvider.getTracer('hyperfleet-api') });
  await hyperFleetClient(api, {
    caller: { kind: 'org', header: 'X-HyperFleet-Org', org: 'acme' },
  }).createCluster({ name: 'traced-1', spec: readySpec() });
});
afterAll(async () => {
  await api.stop();
  await Promise.all([sentinelProvider.shutdown(), apiProvider.shutdown()]);
  context.disable();
  trace.disable();
});
beforeEach(() => memory.reset());

const intervals = { notReadyMs: 60_000, readyMs: 60_000 };

describe('Sentinel emulator with tracing on', () => {
  it('publishes each event with the traceparent of its sentinel.publish span', async () => {
    const events: Record<string, unknown>[] = [];
    const sentinel = new Sentinel(
      hyperFleetClient(api),
      async (event) => {
        events.push(event);
      },
      intervals,
    );
    expect(await sentinel.tick()).toBe(1);
    const spans = memory.getFinishedSpans();
    // Only the publish: the poll (list clusters) recorded nothing, in Sentinel or in the API.
    expect(spans.map((s) => s.name)).toEqual(['sentinel.publish']);
    const publish = spans[0]!;
    expect(publish.kind).toBe(SpanKind.PRODUCER);
    expect(publish.parentSpanContext).toBeUndefined();
    expect(publish.resource.attributes['service.name']).toBe('hyperfleet-sentinel');
    const event = events[0] as { traceparent?: string; data: { id: string; generation: number } };
    expect(publish.attributes).toEqual({
      'hyperfleet.cluster.id': event.data.id,
      'hyperfleet.cluster.generation': event.data.generation,
    });
    const { traceId, spanId } = publish.spanContext();
    expect(event.traceparent).toBe(`00-${traceId}-${spanId}-01`);
    expect(event).not.toHaveProperty('tracestate');
  });

  it('a failed publish ends its span with ERROR and the error class', async () => {
    class TopicUnavailable extends Error {
      override name = 'TopicUnavailable';
    }
    const sentinel = new Sentinel(
      hyperFleetClient(api),
      () => Promise.reject(new TopicUnavailable('no topic')),
      intervals,
      undefined,
      undefined,
      sentinelProvider.getTracer('hyperfleet-sentinel'),
    );
    await expect(sentinel.tick()).rejects.toThrow('no topic');
    const [publish] = memory.getFinishedSpans();
    expect(publish?.status.code).toBe(SpanStatusCode.ERROR);
    expect(publish?.attributes['error.type']).toBe('TopicUnavailable');
  });

  it('with tracing off (a no-op tracer), events carry no traceparent, as real Sentinel sends them', async () => {
    const events: Record<string, unknown>[] = [];
    const sentinel = new Sentinel(
      hyperFleetClient(api),
      async (e) => {
        events.push(e);
      },
      intervals,
      undefined,
      undefined,
      new ProxyTracerProvider().getTracer('off'),
    );
    await sentinel.tick();
    expect(events).toHaveLength(1);
    expect(events[0]).not.toHaveProperty('traceparent');
    expect(memory.getFinishedSpans()).toEqual([]);
  });
});
