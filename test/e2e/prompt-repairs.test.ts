import { HYPERSHIFT_ADAPTER } from '../../emulators/pullsecret/hypershift/report';
import { stackCloudTasksClient } from '../helpers/cloud-tasks';
import { canaryPullSecret } from '../helpers/canary';
import { startTestStack, type TestStack } from '../helpers/stack';

// Issue 37, tried as a new user would, at the adapter's defaults (RESYNC_INTERVAL 24 h,
// DRIFT_REPAIR_BACKOFF 5 min, LAUNCH_CHECK_AFTER 30 s): a RunJob the launcher may not make is
// reported Health=False naming the refusal, and a Secret deleted seconds after convergence is
// repaired at once, without waiting out the back-off meant for repeats of the same report.
describe('end to end on the local stack, at the defaults: refusals and drift answered promptly', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack();
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  it('a RunJob refused with PERMISSION_DENIED reaches Health=False naming the refusal within 120 s', async () => {
    // Every RunJob the queue dispatches is refused, as Cloud Run refuses a launcher without
    // run.jobs.runWithOverrides on the job.
    await stack.fault('cloud-run', {
      match: 'RunJob',
      count: 1000,
      status: 'PERMISSION_DENIED',
      message: "Permission 'run.jobs.runWithOverrides' denied on resource",
    });
    const started = Date.now();
    const id = await stack.createCluster('refused', canaryPullSecret('refused').text);
    const refused = await stack.waitFor(
      'Health=False for the refused launch',
      async () => {
        const own = await stack.own(id);
        return own?.health === 'False' ? own : undefined;
      },
      120_000,
    );
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(120_000);
    expect(refused).toMatchObject({
      availableReason: 'PermissionDenied',
      data: { failure_kind: 'permanent', attempt: 1 },
    });
    const health = (await stack.api.listStatuses(id))
      .find((s) => s.adapter === 'pullsecret')
      ?.conditions.find((c) => c.type === 'Health');
    expect(health?.message).toContain('PERMISSION_DENIED');
    expect(health?.message).toContain('launcher service account');
    expect(await stack.workingExecutionsFor(id)).toEqual([]);
    // The refused task was deleted: the queue stops calling RunJob for it.
    const runJobs = (await stack.requests('cloud-run')).filter((r) => r.method === 'RunJob');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await stack.requests('cloud-run')).filter((r) => r.method === 'RunJob')).toHaveLength(
      runJobs.length,
    );
    console.log(`refused launch reported Health=False after ${Math.round(elapsed / 1000)} s`);
    await stack.clearFaults('cloud-run');
  }, 150_000);

  it('a Secret deleted 10 s after convergence is repaired at once, not after the 5 min back-off', async () => {
    const id = await stack.createCluster('drift-early', canaryPullSecret('drift-early').text);
    await stack.ready(id, 60_000);
    const executionsBefore = (await stack.workingExecutionsFor(id)).length;
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const place = (await stack.placeOf(id))!;
    const deletedAt = Date.now();
    const answer = await stack.kubes
      .get(place.managementCluster)!
      .request('DELETE', `/api/v1/namespaces/${place.namespace}/secrets/${id}-pull-secret`);
    expect(answer.status).toBe(200);
    await stack.waitFor(
      'the Secret back on its management cluster',
      async () => (await stack.secretOf(id)) !== undefined,
      60_000,
    );
    const repairedIn = Date.now() - deletedAt;
    expect(repairedIn).toBeLessThan(60_000);
    expect((await stack.workingExecutionsFor(id)).length).toBe(executionsBefore + 1);
    await stack.waitFor('HyperShift to see it again', async () => {
      const status = (await stack.api.listStatuses(id)).find(
        (s) => s.adapter === HYPERSHIFT_ADAPTER,
      );
      return status?.conditions.find((c) => c.type === 'Available')?.status === 'True';
    });
    console.log(
      `Secret deleted 10 s after convergence repaired in ${Math.round(repairedIn / 1000)} s`,
    );
  }, 150_000);

  it('launches paused with the queue (gcloud tasks queues pause) are held, nothing lost, and run on resume', async () => {
    const tasks = stackCloudTasksClient(stack.d);
    // The fleet's queue and each management cluster's, where a placed cluster's launch waits.
    const queues = ['', '-mgmt-1', '-mgmt-2'].map((suffix) => `${stack.d.launchQueue}${suffix}`);
    try {
      for (const name of queues) await tasks.pauseQueue({ name });
      const id = await stack.createCluster('paused', canaryPullSecret('paused').text);
      // The decision is recorded (queued) while nothing runs.
      const queued = await stack.waitFor('the launch queued while paused', async () => {
        const own = await stack.own(id);
        return own?.appliedReason === 'JobQueued' ? own : undefined;
      });
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      expect(await stack.executionsFor(id)).toEqual([]);
      expect((await stack.own(id))?.data.task).toBe(queued.data.task);
      for (const name of queues) await tasks.resumeQueue({ name });
      await stack.converged(id, undefined, 60_000);
      expect(await stack.workingExecutionsFor(id)).toHaveLength(1);
    } finally {
      for (const name of queues) await tasks.resumeQueue({ name }).catch(() => undefined);
      await tasks.close();
    }
  }, 120_000);
});
