import { randomUUID } from 'node:crypto';
import { PubSub } from '@google-cloud/pubsub';
import { reconcileEvent } from '../../emulators/pullsecret/sentinel/sentinel';
import { canaryPullSecret, type Canary } from '../helpers/canary';
import { stackCloudTasksClient } from '../helpers/cloud-tasks';
import { scanForCanaries } from '../helpers/secret-scan';
import { startTestStack, type TestStack } from '../helpers/stack';

/** The User-Agent the adapter's HyperFleet client sends (functions/adapter/index.ts). */
const ADAPTER = 'pullsecret-adapter';

/** The fields of an adapter log line read here (Cloud Logging's JSON, one object a line). */
interface AdapterLine {
  readonly timestamp: { readonly seconds: number; readonly nanos: number };
  readonly metadata?: { readonly cluster_id?: string; readonly decision?: string };
}

/**
 * Fault matrix, API and delivery side: HyperFleet 503s and timeouts, Cloud Run UNAVAILABLE, the
 * adapter restarted mid-event, the same event ten times at once, the Pub/Sub emulator restarted,
 * and a poison message (dead-lettered after 5 attempts, nothing else affected).
 */
describe('fault matrix: HyperFleet API, Cloud Run, delivery', () => {
  let stack: TestStack;
  const canaries: Canary[] = [];

  beforeAll(async () => {
    // A short API timeout so that "slow" means "timed out" within the test.
    const api = { HYPERFLEET_API_TIMEOUT: '1500ms' };
    stack = await startTestStack({ adapterEnv: api, reporterEnv: api });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  const create = (name: string) => {
    const canary = canaryPullSecret(name);
    canaries.push(canary);
    return stack.createCluster(name, canary.text);
  };
  const convergedOnce = async (id: string) => {
    await stack.converged(id, undefined, 45_000);
    expect(await stack.versions(id)).toEqual(['1:ENABLED']);
    expect((await stack.kubeWrites(id)).map((w) => w.method)).toEqual(['POST']);
  };
  const publish = async (events: object[]) => {
    const pubsub = new PubSub({
      projectId: stack.d.project,
      apiEndpoint: stack.d.endpoints.pubsub,
      emulatorMode: true,
    });
    const topic = pubsub.topic('hyperfleet-system-clusters');
    await Promise.all(
      events.map((event) =>
        topic.publishMessage({
          data: Buffer.from(JSON.stringify(event)),
          attributes: { _watermill_message_uuid: randomUUID() },
        }),
      ),
    );
    await pubsub.close();
  };

  /** Every line the adapter instances logged (each names its component). */
  const adapterLines = () =>
    stack
      .logText()
      .split('\n')
      .filter((line) => line.startsWith('{') && line.includes('"component":"pullsecret-adapter"'));

  it.each([
    ['GET cluster', 'answering 503', 'GET', '', 503, undefined],
    ['GET cluster', 'timing out', 'GET', '', undefined, 3000],
    ['PUT status', 'answering 503', 'PUT', '/statuses', 503, undefined],
    ['PUT status', 'timing out', 'PUT', '/statuses', undefined, 3000],
  ])(
    "the adapter's HyperFleet %s %s three times: the adapter receives all three and converges without duplicate writes",
    async (_call, _fault, method, suffix, status, delayMs) => {
      stack.pausePlacement(true);
      const id = await create(`hf-${method.toLowerCase()}-${status ?? 'slow'}`);
      const path = `/api/hyperfleet/v1/clusters/${id}${suffix}`;
      const key = `${method} ${path}`;
      // Aimed at the adapter on this path alone: the job, the reporter, the HyperShift simulator,
      // placement and this test's own polls make requests on the same paths.
      await stack.fault('hyperfleet-api', {
        match: key,
        exact: true,
        client: ADAPTER,
        count: 3,
        ...(status ? { status } : {}),
        ...(delayMs ? { delayMs } : {}),
      });
      // The launch waits in the paused queue until the adapter has met all three faults: the
      // queue is created before the status write, so the job, the reporter's success and then
      // up-to-date events (which write nothing) could otherwise converge the cluster first.
      const tasks = stackCloudTasksClient(stack.d);
      const takenHere = async () =>
        (await stack.faultsTaken('hyperfleet-api')).filter((f) => f.key === key);
      try {
        await tasks.pauseQueue({ name: stack.d.launchQueue });
        stack.pausePlacement(false);
        await stack.waitFor('the adapter to meet the three faults', async () =>
          (await takenHere()).length === 3 ? true : undefined,
        );
      } finally {
        await tasks.resumeQueue({ name: stack.d.launchQueue });
        await tasks.close();
      }
      await convergedOnce(id);
      const taken = await takenHere();
      expect(taken.map((f) => f.client)).toEqual([ADAPTER, ADAPTER, ADAPTER]);
      if (status) {
        const answered = (await stack.requests('hyperfleet-api')).filter(
          (r) => r.method === method && r.target === path && r.client === ADAPTER,
        );
        expect(answered.filter((r) => r.outcome === status)).toHaveLength(3);
      } else {
        // Held past HYPERFLEET_API_TIMEOUT: the adapter gave up on the request and retried it.
        const timedOut = adapterLines().filter(
          (line) =>
            line.includes('"message":"HyperFleet API call failed, retrying"') &&
            line.includes(`"method":"${method}","path":"/clusters/${id}${suffix}"`) &&
            line.includes('TimeoutError'),
        );
        expect(timedOut.length).toBeGreaterThanOrEqual(1);
      }
    },
  );

  it('Cloud Tasks UNAVAILABLE on CreateTask makes the adapter fail the delivery; Pub/Sub redelivers and it converges', async () => {
    await stack.fault('cloud-tasks', { match: 'CreateTask', count: 3, status: 'UNAVAILABLE' });
    const id = await create('tasks-unavailable');
    await convergedOnce(id);
    expect(await stack.workingExecutionsFor(id)).toHaveLength(1);
    expect(stack.logText()).toMatch(/"decision":"retry"/);
  });

  it('Cloud Run UNAVAILABLE on RunJob: the queue retries the task with its backoff, one execution', async () => {
    await stack.fault('cloud-run', { match: 'RunJob', count: 1, status: 'UNAVAILABLE' });
    const id = await create('run-unavailable');
    await convergedOnce(id);
    expect(await stack.workingExecutionsFor(id)).toHaveLength(1);
    const runJobs = (await stack.requests('cloud-run')).filter((r) => r.method === 'RunJob');
    expect(runJobs.map((r) => r.outcome)).toContain('UNAVAILABLE');
  });

  it('the adapter function restarted mid-event: the delivery is retried by Pub/Sub and converges', async () => {
    stack.pausePlacement(true);
    const id = await create('adapter-restart');
    const key = `GET /api/hyperfleet/v1/clusters/${id}`;
    // Every read of the cluster by the adapter is held past its 1.5 s timeout until the restart:
    // an event for the cluster cannot end before its three attempts have timed out.
    await stack.fault('hyperfleet-api', {
      match: key,
      exact: true,
      client: ADAPTER,
      count: 100,
      delayMs: 60_000,
    });
    stack.pausePlacement(false);
    const heldReads = async () =>
      (await stack.faultsTaken('hyperfleet-api')).filter((f) => f.key === key);
    const firstHeld = await stack.waitFor(
      'an adapter instance held reading the cluster',
      async () => (await heldReads())[0],
    );
    const restartedAt = Date.now();
    await stack.restart('adapter');
    await stack.clearFaults('hyperfleet-api');
    // Mid-event: an instance began an event for the cluster (its read was held, before the
    // restart began) and no instance ended one (every event ends with a decision line) between.
    const endedWhileHeld = adapterLines()
      .map((line) => JSON.parse(line) as AdapterLine)
      .filter((line) => line.metadata?.cluster_id === id && line.metadata.decision !== undefined)
      .map((line) => line.timestamp.seconds * 1000 + line.timestamp.nanos / 1e6)
      .filter((at) => at >= Date.parse(firstHeld.time) && at < restartedAt);
    expect(endedWhileHeld).toEqual([]);
    await convergedOnce(id);
  });

  it('the same event delivered 10 times concurrently over two instances: one version, one Kubernetes write', async () => {
    stack.pausePlacement(true);
    const id = await create('ten-at-once');
    const event = reconcileEvent({ id, generation: 1 });
    await publish(Array.from({ length: 10 }, () => event));
    stack.pausePlacement(false);
    await convergedOnce(id);
    // The copies are spread over two adapter instances, which can each launch one execution
    // (no compare-and-set in the API): the effects above are what is exactly-once; the count is
    // logged for comparison (see test/e2e/cross-instance-races.test.ts).
    const launched = await stack.executionsFor(id);
    expect(launched.length).toBeGreaterThanOrEqual(1);
    console.log(`ten copies at once over two adapter instances: ${launched.length} execution(s)`);
  });

  it('the Pub/Sub emulator restarted (and re-wired): new clusters still converge', async () => {
    await stack.restart('pubsub');
    const id = await create('after-pubsub-restart');
    await convergedOnce(id);
  });

  it('a poison message is dead-lettered after 5 attempts, and nothing else is affected', async () => {
    expect(await stack.deadLetters()).toBe(0);
    const poison = '0195a1b2-dead-7000-8000-00000000beef';
    await stack.fault('hyperfleet-api', {
      match: `GET /api/hyperfleet/v1/clusters/${poison}`,
      count: 1000,
      status: 503,
    });
    await publish([reconcileEvent({ id: poison, generation: 1 })]);
    const healthy = await create('beside-the-poison');
    await convergedOnce(healthy);
    await stack.waitFor(
      'the poison message dead-lettered',
      async () => {
        const attempts = (await stack.requests('hyperfleet-api')).filter(
          (r) => r.target === `/api/hyperfleet/v1/clusters/${poison}` && r.outcome === 503,
        ).length;
        return attempts >= 5 * 3;
      },
      60_000,
    );
    // Pub/Sub moves the message at what would have been the next attempt; inspecting acks, so count across polls.
    let deadLettered = 0;
    await stack.waitFor(
      'the message on the dead-letter topic',
      async () => (deadLettered += await stack.deadLetters()) >= 1,
      30_000,
    );
    expect(deadLettered).toBe(1);
    await stack.clearFaults('hyperfleet-api');
  }, 90_000);

  it('no canary anywhere the system wrote', async () => {
    expect(await scanForCanaries(stack, canaries)).toEqual([]);
  });
});
