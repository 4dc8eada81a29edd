import { canaryPullSecret, type Canary } from '../helpers/canary';
import { matchesLoggingFilter } from '../helpers/logging-filter';
import { executionsEndedAbnormallyFilter } from '../helpers/terraform-metric-filter';
import { scanForCanaries } from '../helpers/secret-scan';
import { CUSTOMER_PROJECT, startTestStack, type TestStack } from '../helpers/stack';

/** The User-Agent the adapter's HyperFleet client sends (functions/adapter/index.ts). */
const ADAPTER = 'pullsecret-adapter';

describe('end to end on the local stack: preconditions, invalid input, faults', () => {
  let stack: TestStack;
  const canaries: Canary[] = [];

  beforeAll(async () => {
    stack = await startTestStack();
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  const canary = (label: string) => {
    const c = canaryPullSecret(label);
    canaries.push(c);
    return c.text;
  };

  it('4. preconditions not met report PreconditionsNotMet; when dns turns Available the cluster converges by itself', async () => {
    await fetch(`${stack.d.endpoints.hyperfleetApi}/_emulator/holds`, {
      method: 'POST',
      body: JSON.stringify({ cluster_name: 'e2e-waiting-dns', adapter: 'dns', available: 'False' }),
    });
    const id = await stack.createCluster('e2e-waiting-dns', canary('preconditions'));
    const waiting = await stack.waitFor('PreconditionsNotMet', async () => {
      const status = await stack.own(id);
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
    expect(await stack.executionsFor(id)).toHaveLength(0);

    await fetch(`${stack.d.endpoints.hyperfleetApi}/_emulator/clusters/${id}/adapters/dns`, {
      method: 'PUT',
      body: JSON.stringify({ available: 'True', hold: false }),
    });
    await stack.converged(id);
    expect(await stack.workingExecutionsFor(id)).toHaveLength(1);
  });

  it('5. an invalid pull secret reports InvalidPullSecret with Health=False, writes nothing, and is not retried endlessly', async () => {
    const id = await stack.createCluster('e2e-invalid', '{"auths": {}}');
    const failed = await stack.waitFor('InvalidPullSecret', async () => {
      const status = await stack.own(id);
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
      stack.sm.getSecret({
        name: `projects/${CUSTOMER_PROJECT}/secrets/hyperfleet-${id}-pull-secret`,
      }),
    ).rejects.toMatchObject({ code: 5 });
    expect(await stack.secretOf(id)).toBeUndefined();
    // Sentinel keeps sending (every second here); nothing more is launched for this generation.
    await new Promise((r) => setTimeout(r, 5000));
    expect(await stack.workingExecutionsFor(id)).toHaveLength(1);
    expect(stack.logText()).toMatch(
      new RegExp(`"cluster_id":"${id}"[^\\n]*"decision":"failed-permanently"`),
    );
  });

  it("7a. the HyperFleet API answering the adapter's cluster reads with 503 three times: the adapter receives all three and it still converges", async () => {
    // Not placed (so nothing can be launched) until the fault is in place.
    stack.pausePlacement(true);
    const id = await stack.createCluster('e2e-hyperfleet-503', canary('hyperfleet-503'));
    const path = `/api/hyperfleet/v1/clusters/${id}`;
    // The cluster read alone (not its /statuses), and the adapter's alone: the job and this
    // test's polls read the same cluster.
    await stack.fault('hyperfleet-api', {
      match: `GET ${path}`,
      exact: true,
      client: ADAPTER,
      count: 3,
      status: 503,
    });
    stack.pausePlacement(false);
    await stack.converged(id);
    const taken = (await stack.faultsTaken('hyperfleet-api')).filter(
      (f) => f.key === `GET ${path}`,
    );
    expect(taken.map((f) => `${f.client} ${f.status}`)).toEqual(Array(3).fill(`${ADAPTER} 503`));
    const answers = (await stack.requests('hyperfleet-api'))
      .filter((r) => r.method === 'GET' && r.target === path && r.client === ADAPTER)
      .map((r) => r.outcome);
    expect(answers.filter((o) => o === 503)).toHaveLength(3);
    // And the adapter recovered from them: a later read of the cluster answered 200.
    expect(answers.slice(answers.lastIndexOf(503) + 1)).toContain(200);
  });

  it('7b. Secret Manager UNAVAILABLE twice still converges with one version', async () => {
    await stack.fault('secret-manager', {
      match: 'AddSecretVersion',
      count: 2,
      status: 'UNAVAILABLE',
    });
    const id = await stack.createCluster('e2e-sm-unavailable', canary('sm-unavailable'));
    await stack.converged(id);
    expect(await stack.versions(id)).toEqual(['1:ENABLED']);
  });

  it('7c. a job killed by SIGKILL is reported failed through the execution-finished event alone, then converges', async () => {
    await stack.killNext(1, 0);
    const id = await stack.createCluster('e2e-killed', canary('killed'));
    await stack.converged(id);
    expect((await stack.executionsFor(id)).length).toBeGreaterThanOrEqual(2);
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
    expect(await stack.versions(id)).toEqual(['1:ENABLED']);
    // Issue 29 §3: the killed execution printed no result line; Terraform's metric on Cloud Run's
    // system_event entries counts it. The entry the stack's emulator routed to the
    // execution-finished topic (tapped) matches the metric's filter; the successful one's does not.
    const filter = await executionsEndedAbnormallyFilter(stack.d.job);
    const names = (await stack.executionsFor(id)).map((e) => e.name.split('/').pop()!);
    const entriesOfCluster = () =>
      stack
        .tappedMessages()
        .filter((m) => m.includes('"methodName":"/Jobs.RunJob"'))
        .map((m) => JSON.parse(m.slice(0, m.lastIndexOf('}{') + 1)) as Record<string, unknown>)
        .filter((e) => names.some((n) => JSON.stringify(e).includes(`"${n}"`)));
    // Convergence comes from the successful execution's result message; its execution-finished
    // entry is published when the execution ends and reaches the tap on its own, possibly later.
    const ofCluster = await stack.waitFor(
      "both executions' execution-finished entries",
      async () => {
        const entries = entriesOfCluster();
        return entries.length >= 2 ? entries : undefined;
      },
    );
    expect(ofCluster.length).toBeGreaterThanOrEqual(2);
    expect(ofCluster.map((e) => matchesLoggingFilter(filter, e)).sort()).toEqual(
      expect.arrayContaining([false, true]),
    );
  });

  it('leaves the dead-letter topics empty and the canaries out of everything the system wrote', async () => {
    expect(await stack.deadLetters()).toBe(0);
    expect(await scanForCanaries(stack, canaries)).toEqual([]);
  });
});
