import { canaryPullSecret, type Canary } from '../helpers/canary';
import { scanForCanaries } from '../helpers/secret-scan';
import { startTestStack, type TestStack } from '../helpers/stack';

/**
 * Fault matrix, HyperFleet API as it really answers (the local stack runs it with JWT and tenancy
 * on): a router 404 HYPERFLEET-NTF-000 is a configuration error (ERROR log, counted, nacked, then
 * redelivered, never "cluster gone"); a proxy's 429/503 with Retry-After is waited out within the
 * retry cap, and a longer one is left to Pub/Sub redelivery.
 */
describe('fault matrix: HyperFleet API answers', () => {
  let stack: TestStack;
  const canaries: Canary[] = [];

  beforeAll(async () => {
    stack = await startTestStack({});
  }, 60_000);
  afterAll(async () => {
    if (stack) expect(await scanForCanaries(stack, canaries)).toEqual([]);
    await stack?.stop();
  }, 30_000);

  const create = (name: string) => {
    const canary = canaryPullSecret(name);
    canaries.push(canary);
    return stack.createCluster(name, canary.text);
  };
  const logLines = () => stack.logText().split('\n');
  const convergedOnce = async (id: string) => {
    await stack.converged(id, undefined, 45_000);
    expect(await stack.versions(id)).toEqual(['1:ENABLED']);
    expect((await stack.kubeWrites(id)).map((w) => w.method)).toEqual(['POST']);
    expect(await stack.workingExecutionsFor(id)).toHaveLength(1);
  };

  it('GET cluster answering 404 HYPERFLEET-NTF-000 twice: ERROR naming the URL, nacked, redelivered, converges', async () => {
    stack.pausePlacement(true);
    const id = await create('hf-ntf-000');
    // Exact: the cluster read only. The HyperShift simulator reads the cluster's statuses on every
    // pass and, matched by prefix, took the 404s meant for the adapter (a flaky failure in CI).
    await stack.fault('hyperfleet-api', {
      match: `GET /api/hyperfleet/v1/clusters/${id}`,
      exact: true,
      count: 2,
      status: 404,
      code: 'HYPERFLEET-NTF-000',
      message: `The requested endpoint '/api/hyperfleet/v1/clusters/${id}' does not exist`,
    });
    // Placement stays paused until the adapter (re-delivered by Sentinel's events) met both 404s.
    await stack.waitFor(
      'the adapter to meet both NTF-000 answers',
      async () =>
        (await stack.requests('hyperfleet-api')).filter(
          (r) => r.target === `/api/hyperfleet/v1/clusters/${id}` && r.outcome === 404,
        ).length >= 2,
      20_000,
    );
    stack.pausePlacement(false);
    await convergedOnce(id);
    expect(
      logLines().filter(
        (l) =>
          l.includes('"decision":"hyperfleet-api-misconfigured"') && l.includes(`clusters/${id}`),
      ),
    ).not.toEqual([]);
  });

  // Twice, so the client's third attempt succeeds: a PUT that fails for good after a launch is the
  // "redelivery after launch" case of the exactly-once work, not this one.
  it('PUT status answering 429 with Retry-After: 1 twice: waited out in-process, converges', async () => {
    stack.pausePlacement(true);
    const id = await create('hf-429-retry-after');
    await stack.fault('hyperfleet-api', {
      match: `PUT /api/hyperfleet/v1/clusters/${id}/statuses`,
      count: 2,
      status: 429,
      headers: { 'retry-after': '1' },
    });
    stack.pausePlacement(false);
    await convergedOnce(id);
    expect(
      logLines().filter(
        (l) => l.includes('HyperFleet API call failed, retrying') && /"delay_ms":1\d{3}\b/.test(l),
      ),
    ).not.toEqual([]);
  });

  it('GET cluster answering 503 with Retry-After: 120: not waited in-process, redelivered, converges', async () => {
    stack.pausePlacement(true);
    const id = await create('hf-503-long-retry-after');
    await stack.fault('hyperfleet-api', {
      match: `GET /api/hyperfleet/v1/clusters/${id}`,
      exact: true,
      count: 1,
      status: 503,
      headers: { 'retry-after': '120' },
    });
    stack.pausePlacement(false);
    await convergedOnce(id);
  });
});
