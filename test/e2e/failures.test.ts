import { demoClusterSpec } from '../../emulators/stack/demo';
import { readOwnStatus } from '../../shared/hyperfleet/pullsecret-status';
import { canaryPullSecret, leaks, type Canary } from '../helpers/canary';
import { startTestStack, type TestStack } from '../helpers/stack';

const PROJECT = 'demo-customer-project';

describe('end to end on the local stack: preconditions, invalid input, faults', () => {
  let stack: TestStack;
  const canaries: Canary[] = [];

  beforeAll(async () => {
    stack = await startTestStack();
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  const create = async (name: string, pullSecret: string, canary?: Canary) => {
    if (canary) canaries.push(canary);
    return (await stack.api.createCluster({ name, spec: demoClusterSpec(pullSecret, PROJECT) })).id;
  };
  const own = async (id: string) => readOwnStatus(await stack.api.listStatuses(id));
  const converged = (id: string, generation = 1) =>
    stack.waitFor(
      `cluster ${id} PullsecretSuccessful=True at generation ${generation}`,
      async () => {
        const condition = (await stack.cluster(id))?.status?.conditions.find(
          (c) => c.type === 'PullsecretSuccessful',
        );
        return condition?.status === 'True' && condition.observed_generation === generation;
      },
    );
  const executionsFor = async (id: string) =>
    (await stack.executions()).filter((e) => e.env.CLUSTER_ID === id);

  it('4. preconditions not met report PreconditionsNotMet; when dns turns Available the cluster converges by itself', async () => {
    const canary = canaryPullSecret('preconditions');
    await fetch(`${stack.d.endpoints.hyperfleetApi}/_emulator/holds`, {
      method: 'POST',
      body: JSON.stringify({ cluster_name: 'e2e-waiting-dns', adapter: 'dns', available: 'False' }),
    });
    const id = await create('e2e-waiting-dns', canary.text, canary);
    const waiting = await stack.waitFor('PreconditionsNotMet', async () => {
      const status = await own(id);
      return status?.availableReason === 'PreconditionsNotMet' ? status : undefined;
    });
    expect(waiting).toMatchObject({
      available: 'False',
      health: 'True',
      data: { precondition: 'dnsAvailable' },
    });
    const statuses = await stack.api.listStatuses(id);
    expect(
      statuses.find((s) => s.adapter === 'pullsecret')?.conditions.find((c) => c.type === 'Applied')
        ?.message,
    ).toContain('dnsAvailable');
    expect(await executionsFor(id)).toHaveLength(0);

    await fetch(`${stack.d.endpoints.hyperfleetApi}/_emulator/clusters/${id}/adapters/dns`, {
      method: 'PUT',
      body: JSON.stringify({ available: 'True', hold: false }),
    });
    await converged(id);
    expect(await executionsFor(id)).toHaveLength(1);
  });

  it('5. an invalid pull secret reports InvalidPullSecret with Health=False, writes nothing, and is not retried endlessly', async () => {
    const id = await create('e2e-invalid', '{"auths": {}}');
    const failed = await stack.waitFor('InvalidPullSecret', async () => {
      const status = await own(id);
      return status?.availableReason === 'InvalidPullSecret' ? status : undefined;
    });
    expect(failed).toMatchObject({
      available: 'False',
      health: 'False',
      data: { failure_kind: 'permanent' },
    });
    const statuses = await stack.api.listStatuses(id);
    expect(
      statuses.find((s) => s.adapter === 'pullsecret')?.conditions.find((c) => c.type === 'Health')
        ?.message,
    ).toContain('"auths" must not be empty');
    await expect(
      stack.sm.getSecret({ name: `projects/${PROJECT}/secrets/hyperfleet-${id}-pull-secret` }),
    ).rejects.toMatchObject({ code: 5 });
    expect(
      await stack.kube.get(`/api/v1/namespaces/clusters-${id}/secrets/${id}-pull-secret`),
    ).toBeUndefined();
    // Sentinel keeps sending (every second here); nothing more is launched for this generation.
    await new Promise((r) => setTimeout(r, 5000));
    expect(await executionsFor(id)).toHaveLength(1);
    expect(stack.logText()).toMatch(
      new RegExp(`"cluster_id":"${id}"[^\\n]*"decision":"failed-permanently"`),
    );
  });

  it('7a. the HyperFleet API answering 503 three times still converges', async () => {
    const canary = canaryPullSecret('hyperfleet-503');
    const id = await create('e2e-hyperfleet-503', canary.text, canary);
    await stack.fault('hyperfleet-api', {
      match: `GET /api/hyperfleet/v1/clusters/${id}`,
      count: 3,
      status: 503,
    });
    await converged(id);
    const answers = (await stack.requests('hyperfleet-api'))
      .filter((r) => r.target.startsWith(`/api/hyperfleet/v1/clusters/${id}`))
      .map((r) => r.outcome);
    expect(answers.filter((o) => o === 503)).toHaveLength(3);
  });

  it('7b. Secret Manager UNAVAILABLE twice still converges with one version', async () => {
    const canary = canaryPullSecret('sm-unavailable');
    await stack.fault('secret-manager', {
      match: 'AddSecretVersion',
      count: 2,
      status: 'UNAVAILABLE',
    });
    const id = await create('e2e-sm-unavailable', canary.text, canary);
    await converged(id);
    const [versions] = await stack.sm.listSecretVersions({
      parent: `projects/${PROJECT}/secrets/hyperfleet-${id}-pull-secret`,
    });
    expect(versions).toHaveLength(1);
  });

  it('7c. a job killed by SIGKILL is reported failed through the execution-finished event alone, then converges', async () => {
    const canary = canaryPullSecret('killed');
    await stack.killNext(1, 0);
    const id = await create('e2e-killed', canary.text, canary);
    await converged(id);
    const executions = await executionsFor(id);
    expect(executions.length).toBeGreaterThanOrEqual(2);
    const reported = stack
      .logText()
      .split('\n')
      .filter(
        (line) =>
          line.includes(`"cluster_id":"${id}"`) &&
          line.includes('"source":"execution-finished"') &&
          line.includes('"decision":"report-failed"'),
      );
    expect(reported.length).toBeGreaterThanOrEqual(1);
    expect(reported[0]).toContain('"reason":"JobFailed"');
  });

  it('leaves the dead-letter topics empty and the canaries out of every log', async () => {
    expect(await stack.deadLetters()).toBe(0);
    expect(leaks(stack.logText(), canaries)).toEqual([]);
  });
});
