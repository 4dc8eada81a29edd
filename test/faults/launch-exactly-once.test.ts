import { canaryPullSecret, type Canary } from '../helpers/canary';
import { scanForCanaries } from '../helpers/secret-scan';
import { startTestStack, type TestStack } from '../helpers/stack';

/**
 * Fault matrix, launch side: one execution per cluster, generation and operation when Cloud Run
 * loses RunJob's answer, when the status write after a launch fails (redelivery), and when an
 * execution never reports (the reporter cannot reach the API): the adapter adopts, or asks Cloud
 * Run, instead of launching again. Every case counts executions per generation.
 */
describe('fault matrix: lost launches and silent executions', () => {
  const canaries: Canary[] = [];

  describe('with the reporter up', () => {
    let stack: TestStack;
    // One adapter instance: these cases prove that a lost answer is adopted, which must give
    // exactly one execution. With two instances, two deliveries racing through their first status
    // read can each launch one (the claim makes the second a duplicate that writes nothing); that
    // race is measured by test/e2e/cross-instance-races.test.ts, not hidden here.
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
      'RunJob answering %s after creating the execution: exactly one execution, adopted, converges',
      async (code) => {
        stack.pausePlacement(true);
        const id = await create(`runjob-${code.toLowerCase().replace(/_/g, '-')}-after`);
        await stack.fault('cloud-run', { match: 'RunJob', status: code, after: true });
        stack.pausePlacement(false);
        await convergedWithOneExecution(id);
        const calls = (await stack.requests('cloud-run')).map((r) => `${r.method}:${r.outcome}`);
        expect(calls).toContain(`RunJob:${code}`);
        expect(calls).toContain('ListExecutions:OK');
        expect(stack.logText()).toMatch(/"decision":"adopt"/);
      },
    );

    it('the status write after a launch fails: the redelivery finds the intent and adopts the execution', async () => {
      stack.pausePlacement(true);
      const id = await create('status-write-lost');
      const statuses = `PUT /api/hyperfleet/v1/clusters/${id}/statuses`;
      // The intent goes through; the "launched" write fails every attempt of the adapter's client.
      await stack.fault('hyperfleet-api', { match: statuses, count: 1, delayMs: 0 });
      await stack.fault('hyperfleet-api', { match: statuses, count: 3, status: 503 });
      // The execution waits for its namespace meanwhile, so only the adapter can fill the gap.
      const adopted = await stack.waitFor('the execution adopted by a redelivery', async () => {
        const own = await stack.own(id);
        return own?.availableReason === 'JobRunning' && own.data.execution ? own : undefined;
      });
      expect(stack.logText()).toMatch(/"decision":"retry"/);
      expect(stack.logText()).toMatch(/"decision":"in-flight-adopt"/);
      expect(adopted.data.launch_id).toBe((await stack.executionsFor(id))[0]?.env.LAUNCH_ID);
      stack.pausePlacement(false);
      await convergedWithOneExecution(id);
    });
  });

  describe('with the reporter down (its API unreachable): executions never report', () => {
    let stack: TestStack;
    beforeAll(async () => {
      stack = await startTestStack({
        adapterInstances: 1,
        adapterEnv: { EXECUTION_CHECK_AFTER: '3s' },
        reporterEnv: {
          HYPERFLEET_API_BASE_URL: 'http://127.0.0.1:9',
          HYPERFLEET_API_TIMEOUT: '1s',
        },
      });
    }, 60_000);
    afterAll(async () => {
      await stack?.stop();
    }, 30_000);

    it('the adapter asks Cloud Run (GetExecution) and reports the finished execution; one execution', async () => {
      const canary = canaryPullSecret('never-reports');
      canaries.push(canary);
      const id = await stack.createCluster('never-reports', canary.text);
      await stack.converged(id, undefined, 45_000);
      const executions = await stack.executionsFor(id);
      expect(executions).toHaveLength(1);
      expect(await stack.own(id)).toMatchObject({
        available: 'True',
        data: { execution: executions[0]!.name },
      });
      const calls = (await stack.requests('cloud-run')).map((r) => r.method);
      expect(calls).toContain('GetExecution');
      expect(stack.logText()).toMatch(/"decision":"in-flight-report"/);
      expect(await scanForCanaries(stack, canaries)).toEqual([]);
    });
  });
});
