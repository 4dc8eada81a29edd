import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createAdapterHandler } from '../../../functions/adapter/flows/handle-event';
import type {
  EnqueueResult,
  LaunchQueue,
  QueuedTask,
} from '../../../functions/adapter/launch-queue/launch-queue';
import {
  compilePreconditions,
  type PreconditionSpec,
} from '../../../functions/adapter/decision/preconditions';
import type { PutStatusOutcome } from '../../../shared/hyperfleet/client';
import type { HyperFleetApi } from '../../../shared/hyperfleet/port';
import {
  adapterStatusSchema,
  type AdapterStatus,
  type AdapterStatusRequest,
  type Cluster,
} from '../../../shared/hyperfleet/schemas';
import { TEST_DECISION_SETTINGS, TEST_PULL_SECRET_PATHS } from '../../helpers/adapter';
import { canaryPullSecret, leaks } from '../../helpers/canary';
import { sentinelEvent } from '../../helpers/events';
import { readySpec } from '../../helpers/hyperfleet';
import { RecordingLogger } from '../../helpers/recording-logger';

// Issue 26, item 6: a CEL precondition that touches the pull secret must leave no secret byte in a
// log line, a status or a span. Today the whole cluster, pull secret included, is CEL input, and a
// CEL error ("Cannot convert {"auths":...}") quotes the value into the status and the log.

const spans = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
beforeAll(() => trace.setGlobalTracerProvider(provider));
afterAll(async () => {
  trace.disable();
  await provider.shutdown();
});

const available = (adapter: string): AdapterStatus => ({
  adapter,
  observed_generation: 1,
  conditions: [{ type: 'Available', status: 'True' }],
  ...(adapter === 'placement' ? { data: { namespace: 'clusters-c1' } } : {}),
});

/** One ready cluster; PUTs recorded. */
class FakeHyperFleet implements HyperFleetApi {
  readonly puts: AdapterStatusRequest[] = [];
  constructor(private readonly cluster: Cluster) {}
  async findCluster(): Promise<Cluster> {
    return this.cluster;
  }
  async listStatuses(): Promise<AdapterStatus[]> {
    const own = this.puts.at(-1);
    return [
      ...['validation', 'dns', 'placement'].map(available),
      // Our own status as the API stores it: the launch flow reads its intent back.
      ...(own ? [adapterStatusSchema.parse(own)] : []),
    ];
  }
  async putStatus(_id: string, body: AdapterStatusRequest): Promise<PutStatusOutcome> {
    this.puts.push(body);
    return 'stored';
  }
}

class NoCloudRun implements LaunchQueue {
  readonly launches: string[] = [];
  enqueueBatch(): Promise<EnqueueResult> {
    throw new Error('no batch launches in this test');
  }
  async enqueue(): Promise<EnqueueResult> {
    this.launches.push('RunJob');
    return 'queued';
  }
  async inspect(): Promise<QueuedTask | undefined> {
    return undefined;
  }
  async cancel(): Promise<void> {}
  async read(): Promise<undefined> {
    return undefined;
  }
}

async function handle(spec: PreconditionSpec) {
  const canary = canaryPullSecret('cel');
  const additional = canaryPullSecret('cel-additional', ['registry.example.com']);
  const cluster: Cluster = {
    id: 'c1',
    name: 'cel',
    generation: 1,
    spec: {
      ...readySpec(canary.text),
      pullSecret: { data: canary.text, additional: additional.text },
    },
  };
  const hyperfleet = new FakeHyperFleet(cluster);
  const cloudRun = new NoCloudRun();
  const logger = new RecordingLogger();
  spans.reset();
  await createAdapterHandler({
    hyperfleet,
    launchQueue: { queue: cloudRun, name: 'projects/p/locations/l/queues/q', jobName: 'j' },
    lookup: cloudRun,
    preconditions: compilePreconditions([spec]),
    settings: TEST_DECISION_SETTINGS,
    pullSecret: TEST_PULL_SECRET_PATHS,
    logger,
  })(sentinelEvent('c1', 1));
  const haystack = [
    logger.text(),
    JSON.stringify(hyperfleet.puts),
    JSON.stringify(
      spans.getFinishedSpans().map((s) => ({
        name: s.name,
        attributes: s.attributes,
        status: s.status,
        events: s.events,
      })),
    ),
  ].join('\n');
  return { found: leaks(haystack, [canary, additional]), hyperfleet, logger, cloudRun };
}

const conditionOf = (put: AdapterStatusRequest | undefined, type: string) =>
  put?.conditions.find((c) => c.type === type);

describe('CEL preconditions never see the pull secret and never echo a value', () => {
  it.each([
    ['int() of the pull secret', 'int(cluster.spec.pullSecret.data) > 0'],
    ['int() of the additional pull secret', 'int(cluster.spec.pullSecret.additional) > 0'],
    ['the whole pullSecret object as a string', 'string(cluster.spec.pullSecret) == ""'],
    ['the whole spec in a comparison', 'int(cluster.spec) > 0'],
  ])('%s: no canary form in any log line, status or span', async (_name, expression) => {
    const { found, hyperfleet, cloudRun } = await handle({ name: 'probe', expression });
    expect(found).toEqual([]);
    expect(cloudRun.launches).toEqual([]);
    // Still reported: the precondition could not be evaluated (or is false), never launched.
    expect(hyperfleet.puts).toHaveLength(1);
  });

  it('a CEL failure is a fixed text naming the precondition and its expression', async () => {
    const expression = 'int(cluster.name) > 0';
    const { hyperfleet, logger } = await handle({ name: 'nameIsNumber', expression });
    const message = conditionOf(hyperfleet.puts[0], 'Health')?.message ?? '';
    expect(message).toContain('Precondition nameIsNumber failed to evaluate');
    expect(message).toContain(expression);
    // The evaluated value (the cluster name "cel") is not quoted anywhere.
    expect(logger.text()).not.toMatch(/Cannot convert|"cel"|\\"cel\\"/);
    expect(message).not.toMatch(/Cannot convert/);
  });

  it('the pull secret is absent from the CEL input; pullSecret.inSpec says whether there is one', async () => {
    const absent = await handle({
      name: 'secretHidden',
      expression: '!has(cluster.spec.pullSecret.data) && !has(cluster.spec.pullSecret.additional)',
    });
    expect(absent.cloudRun.launches).toEqual(['RunJob']);
    const flags = await handle({
      name: 'flags',
      expression: 'pullSecret.inSpec && pullSecret.additionalInSpec',
    });
    expect(flags.cloudRun.launches).toEqual(['RunJob']);
  });
});
