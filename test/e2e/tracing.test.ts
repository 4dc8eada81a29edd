// Issue 18 end to end: one reconcile, one trace. A Sentinel event carrying a KNOWN traceparent is
// published for a new cluster; once the status write is done, the stack's trace store must hold
// one trace with that id across the adapter, the execution, the reporter and the HyperFleet API,
// with the parent-child chain the contract names; the logs of all three services carry the trace;
// `npm run trace` draws it; and no secret is in any span (the canary scan covers .local/traces).
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { PubSub } from '@google-cloud/pubsub';
import { TraceFlags } from '@opentelemetry/api';
import { reconcileEvent } from '../../emulators/pullsecret/sentinel/sentinel';
import { readTrace } from '../../emulators/traces/trace-reader';
import type { StoredSpan } from '../../emulators/traces/stored-span';
import { canaryPullSecret } from '../helpers/canary';
import { ROOT, runNode } from '../helpers/run-process';
import { scanForCanaries, traceText } from '../helpers/secret-scan';
import { startTestStack, type TestStack } from '../helpers/stack';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SENTINEL_SPAN = 'b7ad6b7169203331';
const TRACE_CLI = path.join(ROOT, 'dist/emulators/pullsecret/stack/trace.js');
const STATUSES = 'PUT /api/hyperfleet/v1/clusters/{cluster_id}/statuses';

let stack: TestStack;
beforeAll(async () => {
  // Sentinel polls once at start (no clusters yet) and then not for an hour: the test's event,
  // with its known traceparent, is the only one the cluster gets.
  stack = await startTestStack({ sentinel: { pollInterval: '1h' } });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
}, 30_000);

/** The one span named `name` (in `service`) that `where` accepts. */
function only(
  spans: readonly StoredSpan[],
  name: string,
  service: string,
  where: (s: StoredSpan) => boolean = () => true,
): StoredSpan {
  const found = spans.filter((s) => s.name === name && s.service === service && where(s));
  expect({ name, service, count: found.length }).toEqual({ name, service, count: 1 });
  return found[0]!;
}

/** Whether `span` descends from `ancestor` in `spans`. */
function descends(spans: readonly StoredSpan[], span: StoredSpan, ancestor: StoredSpan): boolean {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  for (let at = span.parentSpanId, hops = 0; at && hops < 50; hops++) {
    if (at === ancestor.spanId) return true;
    at = byId.get(at)?.parentSpanId;
  }
  return false;
}

/** JSON log lines of files (non-JSON lines, e.g. a framework's banner, are skipped). */
function jsonLines(files: readonly string[]): Record<string, unknown>[] {
  return files.flatMap((file) =>
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line) => {
        try {
          const value = JSON.parse(line) as unknown;
          return value && typeof value === 'object' ? [value as Record<string, unknown>] : [];
        } catch {
          return [];
        }
      }),
  );
}

describe('one reconcile, one trace: from a Sentinel event with a known traceparent to the status write', () => {
  it('carries one trace id across adapter, execution, reporter and the HyperFleet API', async () => {
    const canary = canaryPullSecret('tracing');
    const id = await stack.createCluster('traced', canary.text);
    // The cluster's preconditions hold before the one event arrives (the simulated adapters report
    // at once; placement once it made the namespace), so that event is the one that launches.
    await stack.waitFor('placement to report', () => stack.placeOf(id));

    const pubsub = new PubSub({
      projectId: stack.d.project,
      apiEndpoint: stack.d.endpoints.pubsub,
      emulatorMode: true,
    });
    const event = reconcileEvent(
      { id, generation: 1 },
      { traceId: TRACE_ID, spanId: SENTINEL_SPAN, traceFlags: TraceFlags.SAMPLED },
    );
    expect(event.traceparent).toBe(`00-${TRACE_ID}-${SENTINEL_SPAN}-01`);
    await pubsub.topic('hyperfleet-system-clusters').publishMessage({
      data: Buffer.from(JSON.stringify(event)),
      attributes: { _watermill_message_uuid: randomUUID() },
    });
    await pubsub.close();
    await stack.converged(id, 1, 60_000);

    // Every component flushes before it answers (functions) or exits (the job); the API batches
    // for half a second. Wait until the whole chain is in the store.
    const spans = await stack.waitFor(
      "the reporter's write of the job result and its API span in the trace store",
      async () => {
        const all = readTrace(stack.d.traces.dir, TRACE_ID);
        // The chain this test checks: the job's result publish, the reporter's handling of that
        // message, its status write and the API's span of it. The job's start report has a chain
        // of its own, which may land first: waiting for any reporter write would stop too soon.
        const publish = all.find((s) => s.name === 'pubsub.publish_result');
        const report = all.find(
          (s) => s.name === 'reporter.handle' && s.parentSpanId === publish?.spanId,
        );
        const writes = all.filter(
          (s) =>
            s.service === 'pullsecret-reporter' &&
            s.name === STATUSES &&
            report !== undefined &&
            descends(all, s, report),
        );
        const served = all.some(
          (s) => s.service === 'hyperfleet-api' && writes.some((w) => w.spanId === s.parentSpanId),
        );
        const names = new Set(all.map((s) => s.name));
        return served && names.has('adapter.handle') && names.has('job.run') ? all : undefined;
      },
      20_000,
    );
    expect(spans.every((s) => s.traceId === TRACE_ID)).toBe(true);

    // Adapter: continues Sentinel's span; decides to launch; launches through the Cloud Tasks queue.
    const handle = only(spans, 'adapter.handle', 'pullsecret-adapter');
    expect(handle.parentSpanId).toBe(SENTINEL_SPAN);
    expect(handle.kind).toBe('CONSUMER');
    expect(handle.attributes).toMatchObject({
      'hyperfleet.cluster.id': id,
      'hyperfleet.cluster.generation': 1,
      'pullsecret.decision': 'launch-apply',
    });
    const createTask = only(spans, 'cloudtasks.CreateTask', 'pullsecret-adapter');
    expect(descends(spans, createTask, handle)).toBe(true);
    // The adapter's own API reads reached the API in the same trace.
    const adapterRead = spans.find(
      (s) =>
        s.service === 'hyperfleet-api' && s.name.startsWith('GET ') && descends(spans, s, handle),
    );
    expect(adapterRead?.kind).toBe('SERVER');

    // Execution: job.run is the child of the launch span (TRACEPARENT env override).
    const job = only(spans, 'job.run', 'pullsecret-job');
    expect(job.parentSpanId).toBe(createTask.spanId);
    expect(job.attributes['hyperfleet.cluster.id']).toBe(id);
    const publish = only(spans, 'pubsub.publish_result', 'pullsecret-job');
    expect(descends(spans, publish, job)).toBe(true);

    // Reporter: the child of the job's publish span (result message attributes).
    const report = only(
      spans,
      'reporter.handle',
      'pullsecret-reporter',
      (s) => s.parentSpanId === publish.spanId,
    );
    expect(report.kind).toBe('CONSUMER');
    const write = only(spans, STATUSES, 'pullsecret-reporter', (s) => descends(spans, s, report));
    expect(write.kind).toBe('CLIENT');
    // The API's SERVER span for the status write: the child of the reporter's CLIENT span.
    const served = only(spans, STATUSES, 'hyperfleet-api', (s) => s.parentSpanId === write.spanId);
    expect(served.kind).toBe('SERVER');
    expect(served.attributes).toMatchObject({
      'http.response.status_code': 201,
      'hyperfleet.cluster.id': id,
    });

    // Logs of all three services carry the trace, where Cloud Logging lifts it from.
    const trace = `projects/${stack.d.project}/traces/${TRACE_ID}`;
    const logs = {
      adapter: stack.d.adapters.instances.map((i) => i.logFile),
      job: fs
        .readdirSync(path.join(stack.d.logDir, 'jobs'))
        .map((f) => path.join(stack.d.logDir, 'jobs', f)),
      reporter: [path.join(stack.d.logDir, 'reporter.log')],
    };
    for (const [service, files] of Object.entries(logs)) {
      const traced = jsonLines(files).filter((l) => l['logging.googleapis.com/trace'] === trace);
      expect({ service, traced: traced.length > 0 }).toEqual({ service, traced: true });
      expect(
        traced.every((l) => /^[0-9a-f]{16}$/.test(String(l['logging.googleapis.com/spanId']))),
      ).toBe(true);
      expect(traced.every((l) => l['logging.googleapis.com/trace_sampled'] === true)).toBe(true);
    }

    // `npm run trace -- ID` draws this trace (the cluster's only reconcile).
    const stackFile = path.join(stack.d.workDir, 'stack.json');
    fs.writeFileSync(stackFile, JSON.stringify(stack.d));
    const drawn = await runNode(TRACE_CLI, [id, '--stack', stackFile], {});
    expect(drawn.stderr).toBe('');
    expect(drawn.code).toBe(0);
    expect(drawn.stdout.split('\n')[0]).toContain(`Trace ${TRACE_ID}:`);
    for (const name of [
      'adapter.handle',
      'cloudtasks.CreateTask',
      'job.run',
      'pubsub.publish_result',
      'reporter.handle',
      STATUSES,
    ])
      expect(drawn.stdout).toContain(name);
    expect(drawn.stdout).toMatch(/adapter\.handle +decision=launch-apply/);
    expect(drawn.stdout).toContain(`parent=${SENTINEL_SPAN}`);

    // No secret anywhere the system wrote, the trace store included (and it is not empty).
    expect(traceText(stack.d.traces.dir)).toContain(id);
    expect(await scanForCanaries(stack, [canary])).toEqual([]);
  }, 150_000);
});
