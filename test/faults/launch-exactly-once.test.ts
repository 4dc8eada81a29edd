import { canaryPullSecret, type Canary } from '../helpers/canary';
import { scanForCanaries } from '../helpers/secret-scan';
import { startTestStack, type TestStack } from '../helpers/stack';

/**
 * Fault matrix, launch side: one execution per cluster, generation and operation when Cloud Tasks
 * loses CreateTask's answer, when the status write after queueing fails (redelivery), and when
 * RunJob is refused for quota (the queue retries it). The launch is a named task, so every retry
 * and redelivery names the same one and gets ALREADY_EXISTS. Every case counts executions.
 */
describe('fault matrix: lost launches and silent executions', () => {
  const canaries: Canary[] = [];

  describe('with the reporter up', () => {
    let stack: TestStack;
    beforeAll(async () => {
      stack = await startTestStack({ adapterInstances: 1 });
    }, 60_000);
    afterAll(async () => {
      await stack?.stop();
    }, 30_000);

    const create = (name: string) => {
      const canary = canaryPullSecret(name);
      canaries.push(canary);
      return stack.createCluster(name, canary.text);
    };
    const convergedWithOneExecution = async (id: string) => {
      await stack.converged(id, undefined, 45_000);
      expect(await stack.executionsFor(id)).toHaveLength(1);
      expect(await stack.versions(id)).toEqual(['1:ENABLED']);
      expect((await stack.kubeWrites(id)).map((w) => w.method)).toEqual(['POST']);
    };

    it.each(['DEADLINE_EXCEEDED', 'UNAVAILABLE'])(
      'CreateTask answering %s after creating the task: the retry gets ALREADY_EXISTS, one execution, converges',
      async (code) => {
        stack.pausePlacement(true);
        const id = await create(`createtask-${code.toLowerCase().replace(/_/g, '-')}-after`);
        await stack.fault('cloud-tasks', { match: 'CreateTask', status: code, after: true });
        stack.pausePlacement(false);
        await convergedWithOneExecution(id);
        const calls = (await stack.requests('cloud-tasks'))
          .filter((r) => r.method === 'CreateTask')
          .map((r) => r.outcome);
        expect(calls).toEqual(expect.arrayContaining([code, 'ALREADY_EXISTS']));
        expect(stack.logText()).toMatch(/"decision":"launch-already-queued"/);
      },
    );

    it('the status write after queueing fails: the redelivery queues the same task and records it', async () => {
      stack.pausePlacement(true);
      const id = await create('status-write-lost');
      const statuses = `PUT /api/hyperfleet/v1/clusters/${id}/statuses`;
      // The "queued" write fails every attempt of the adapter's client: the event is redelivered.
      await stack.fault('hyperfleet-api', { match: statuses, count: 3, status: 503 });
      stack.pausePlacement(false);
      await convergedWithOneExecution(id);
      expect(stack.logText()).toMatch(/"decision":"launch-already-queued"/);
    });

    it('RunJob refused for quota (429): the queue retries it with backoff, one execution', async () => {
      stack.pausePlacement(true);
      const id = await create('runjob-quota');
      await stack.fault('cloud-run', { match: 'RunJob', count: 2, status: 'RESOURCE_EXHAUSTED' });
      stack.pausePlacement(false);
      await convergedWithOneExecution(id);
      const runJobs = (await stack.requests('cloud-run'))
        .filter((r) => r.method === 'RunJob')
        .map((r) => r.outcome);
      expect(runJobs.filter((o) => o === 'RESOURCE_EXHAUSTED')).toHaveLength(2);
    });
  });

  // Without the reporter nothing records an execution's start or end. The adapter cannot know the
  // execution's name (Cloud Tasks deletes a dispatched task, and ListExecutions is no longer
  // granted), so it relaunches once per LAUNCH_START_GRACE with the next attempt: bounded, and said.
  describe('with the reporter down (its API unreachable): executions never report', () => {
    let stack: TestStack;
    beforeAll(async () => {
      stack = await startTestStack({
        adapterInstances: 1,
        adapterEnv: { LAUNCH_CHECK_AFTER: '2s', LAUNCH_START_GRACE: '8s' },
        reporterEnv: {
          HYPERFLEET_API_BASE_URL: 'http://127.0.0.1:9',
          HYPERFLEET_API_TIMEOUT: '1s',
        },
      });
    }, 60_000);
    afterAll(async () => {
      await stack?.stop();
    }, 30_000);

    it('relaunches at most once per LAUNCH_START_GRACE, each with the next attempt, and says why', async () => {
      const canary = canaryPullSecret('never-reports');
      canaries.push(canary);
      const id = await stack.createCluster('never-reports', canary.text);
      const started = Date.now();
      await stack.waitFor(
        'a relaunch after the start grace',
        async () => (await stack.executionsFor(id)).length >= 2,
        45_000,
      );
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      const executions = await stack.executionsFor(id);
      const seconds = (Date.now() - started) / 1000;
      // One launch, then one per 8 s grace at most (plus the check's own spacing).
      expect(executions.length).toBeLessThanOrEqual(Math.ceil(seconds / 8) + 1);
      const attempts = executions.map((e) => Number(e.env.LAUNCH_ATTEMPT)).sort((a, b) => a - b);
      expect(attempts).toEqual(attempts.map((_, i) => i + 1));
      expect(stack.logText()).toMatch(/no execution reported its start; launching again/);
      expect(await scanForCanaries(stack, canaries)).toEqual([]);
    });
  });
});
