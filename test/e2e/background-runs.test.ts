import { canaryPullSecret } from '../helpers/canary';
import { startTestStack, type TestStack } from '../helpers/stack';

/** How long the converged cluster is watched, and its resync interval (issue 37, Reach). */
const WATCH_MS = 75_000;
const RESYNC = '20s';

// Issue 37: background runs keep a converged cluster Ready. A resync (here every 20 s, so several
// run while the test watches) goes through the queue like any launch, but its rows keep
// Available=True and the place data HyperShift reads, so the cluster never leaves
// PullsecretSuccessful/Ready and Sentinel never switches to fast re-sends.
describe('end to end on the local stack: resyncs keep a converged cluster Ready', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ adapterEnv: { RESYNC_INTERVAL: RESYNC, RESYNC_SPREAD: '0s' } });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  it(`never leaves Available=True nor loses its place data through ${WATCH_MS / 1000} s of ${RESYNC} resyncs`, async () => {
    const id = await stack.createCluster('resync-ready', canaryPullSecret('resync-ready').text);
    await stack.ready(id, 60_000);
    const place = await stack.own(id);
    const { management_cluster, namespace, pull_secret_name } = place?.data ?? {};
    expect([management_cluster, namespace, pull_secret_name]).not.toContain(undefined);
    const executionsBefore = (await stack.workingExecutionsFor(id)).length;

    const seen = new Set<string>();
    const lapses: string[] = [];
    const deadline = Date.now() + WATCH_MS;
    while (Date.now() < deadline) {
      const [own, cluster] = await Promise.all([stack.own(id), stack.cluster(id)]);
      seen.add(own?.appliedReason ?? '(none)');
      const pullsecret = cluster?.status?.conditions.find((c) => c.type === 'PullsecretSuccessful');
      if (own?.available !== 'True')
        lapses.push(`Available=${own?.available} (${own?.availableReason})`);
      if (own?.data.management_cluster !== management_cluster || own?.data.namespace !== namespace)
        lapses.push(`place data ${JSON.stringify(own?.data)}`);
      if (own?.data.pull_secret_name !== pull_secret_name) lapses.push('pull_secret_name lost');
      if (pullsecret?.status !== 'True') lapses.push(`PullsecretSuccessful=${pullsecret?.status}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(lapses).toEqual([]);
    // The resyncs did run, through the queue, and were seen in flight.
    const resyncs = (await stack.workingExecutionsFor(id)).length - executionsBefore;
    expect(resyncs).toBeGreaterThanOrEqual(2);
    expect([...seen]).toEqual(expect.arrayContaining(['JobSucceeded']));
    expect([...seen].some((reason) => reason === 'JobQueued' || reason === 'JobLaunched')).toBe(
      true,
    );
    // Still Ready as a whole (every required adapter, HyperShift's included).
    await stack.ready(id, 1_000);
  }, 150_000);
});
