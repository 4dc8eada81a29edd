import { canaryPullSecret, type Canary } from '../helpers/canary';
import { stackCloudRunClients } from '../helpers/cloud-run';
import { scanForCanaries } from '../helpers/secret-scan';
import { CUSTOMER_PROJECT, startTestStack, type TestStack } from '../helpers/stack';

/**
 * Fault matrix, storage side: Secret Manager and Kubernetes faults and a job killed mid-run. Every
 * case must converge (or be reported, for permanent faults) without duplicate side effects: one
 * Secret Manager version and one Kubernetes create per cluster, empty dead-letter topics.
 */
describe('fault matrix: Secret Manager, Kubernetes, the job', () => {
  let stack: TestStack;
  const canaries: Canary[] = [];

  beforeAll(async () => {
    stack = await startTestStack();
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
    await stack.converged(id);
    expect(await stack.versions(id)).toEqual(['1:ENABLED']);
    expect((await stack.kubeWrites(id)).map((w) => w.method)).toEqual(['POST']);
  };
  const reportedPermanently = async (id: string, reason: string) => {
    const status = await stack.waitFor(`${reason} reported`, async () => {
      const own = await stack.own(id);
      return own?.availableReason === reason ? own : undefined;
    });
    expect(status).toMatchObject({
      available: 'False',
      health: 'False',
      data: { failure_kind: 'permanent' },
    });
    await new Promise((r) => setTimeout(r, 4000));
    expect(await stack.workingExecutionsFor(id)).toHaveLength(1);
    return status;
  };

  it.each([
    ['UNAVAILABLE', 'AddSecretVersion', 2],
    ['DEADLINE_EXCEEDED', 'CreateSecret', 2],
    ['RESOURCE_EXHAUSTED', 'GetSecret', 3],
  ])(
    'Secret Manager %s on %s is retried with backoff and converges',
    async (code, method, count) => {
      await stack.fault('secret-manager', { match: method, count, status: code });
      const id = await create(`sm-${code.toLowerCase().replace(/_/g, '-')}`);
      await convergedOnce(id);
      const outcomes = (await stack.requests('secret-manager')).filter(
        (r) => r.method === method && r.outcome === code,
      );
      expect(outcomes).toHaveLength(count);
    },
  );

  it('Secret Manager PERMISSION_DENIED is reported (Health=False, PermissionDenied) and not retried forever', async () => {
    // Placement held until the fault is set for this cluster's secret only: the reporter also
    // reads secrets (the claim), and a late report of an earlier case must not take the fault.
    stack.pausePlacement(true);
    const id = await create('sm-permission-denied');
    await stack.fault('secret-manager', {
      match: 'GetSecret',
      target: `projects/${CUSTOMER_PROJECT}/secrets/hyperfleet-${id}-pull-secret`,
      count: 1,
      status: 'PERMISSION_DENIED',
      message: "Permission 'secretmanager.secrets.get' denied",
    });
    stack.pausePlacement(false);
    await reportedPermanently(id, 'PermissionDenied');
    expect(await stack.versions(id).catch(() => [])).toEqual([]);
  });

  it('Kubernetes 500 on create is retried and converges', async () => {
    stack.pausePlacement(true);
    const id = await create('kube-500');
    await stack.fault('kube-apiserver', {
      match: `POST /api/v1/namespaces/clusters-${id}/secrets`,
      count: 2,
      status: 500,
    });
    stack.pausePlacement(false);
    await convergedOnce(id);
  });

  it('Kubernetes 409 on update re-reads and converges', async () => {
    const id = await create('kube-409');
    await convergedOnce(id);
    const rotated = canaryPullSecret('kube-409-rotated');
    canaries.push(rotated);
    await stack.fault('kube-apiserver', {
      match: `PATCH /api/v1/namespaces/clusters-${id}/secrets/${id}-pull-secret`,
      count: 1,
      status: 409,
    });
    await stack.api.patchCluster(id, { spec: { pullSecret: { data: rotated.text } } });
    await stack.converged(id, 2);
    expect(await stack.versions(id)).toEqual(['2:ENABLED', '1:DESTROYED']);
    expect((await stack.kubeWrites(id)).map((w) => w.method)).toEqual(['POST', 'PATCH']);
  });

  it('a management namespace created late is waited for, then the cluster converges', async () => {
    stack.pausePlacement(true);
    const id = await create('namespace-late');
    await stack.waitFor(
      'the job waiting for the namespace',
      async () =>
        stack.logText().includes('Management namespace not found yet') &&
        stack.logText().includes(`clusters-${id}`),
    );
    stack.pausePlacement(false);
    await convergedOnce(id);
    expect(await stack.workingExecutionsFor(id)).toHaveLength(1);
  });

  it('Kubernetes 403 is reported as PermissionDenied naming identity, verb and namespace, and not retried forever', async () => {
    // The job's ClusterRole (rendered from Terraform's template) loses create everywhere.
    const user = stack.d.jobIdentity;
    await stack.setJobSecretVerbs(['patch', 'delete']);
    try {
      const id = await create('kube-403');
      await reportedPermanently(id, 'PermissionDenied');
      const health = (await stack.api.listStatuses(id))
        .find((s) => s.adapter === 'pullsecret')
        ?.conditions.find((c) => c.type === 'Health');
      expect(health?.message).toContain(
        `User "${user}" cannot create resource "secrets" in API group "" in the namespace "clusters-${id}"`,
      );
    } finally {
      await stack.setJobSecretVerbs(['create', 'patch', 'delete']);
    }
  });

  it('a job killed mid-run is reported failed and the next execution converges without duplicates', async () => {
    await stack.killNext(1, 400);
    const id = await create('killed-mid-run');
    await convergedOnce(id);
    expect((await stack.executionsFor(id)).length).toBeGreaterThanOrEqual(2);
  });

  it('a second execution for the same generation racing the first: one writes, the duplicate exits 0 and is never reported', async () => {
    // Hold both executions' claim writes so that they overlap: the race is forced, not hoped for.
    await stack.fault('secret-manager', { match: 'CreateSecret', count: 2, delayMs: 4000 });
    const id = await create('racing-executions');
    const [first] = await stack.waitFor('the adapter launched an execution', async () => {
      const launched = await stack.executionsFor(id);
      return launched.length > 0 ? launched : undefined;
    });
    // What a second adapter instance, or a redelivery the launcher did not catch, would launch.
    const run = stackCloudRunClients(stack.d);
    try {
      await run.jobs.runJob({
        name: stack.d.job,
        overrides: {
          containerOverrides: [
            {
              env: Object.entries(first!.env)
                .filter(([name]) => !/^(CLOUD_RUN_|K_)|^PORT$/.test(name))
                .map(([name, value]) => ({ name, value })),
            },
          ],
        },
      });
    } finally {
      await run.jobs.close();
      await run.executions.close();
    }
    await convergedOnce(id);
    const executions = await stack.waitFor('both executions finished', async () => {
      const all = await stack.executionsFor(id);
      return all.length === 2 && all.every((e) => e.done) ? all : undefined;
    });
    const outcomes = (await stack.requests('secret-manager'))
      .filter(
        (r) =>
          r.method === 'CreateSecret' &&
          r.target === `projects/${CUSTOMER_PROJECT}/secrets/hyperfleet-${id}-pull-secret`,
      )
      .map((r) => r.outcome);
    expect(outcomes).toEqual(expect.arrayContaining(['OK', 'ALREADY_EXISTS']));
    // The status names the claim holder; the duplicate's success changed nothing, even later.
    await new Promise((r) => setTimeout(r, 3000));
    const own = await stack.own(id);
    const holder = own?.data.execution ?? '';
    expect(executions.map((e) => e.name)).toContain(holder);
    expect(own?.available).toBe('True');
    expect(stack.logText()).toMatch(/"decision":"stood-aside"/);
    expect(await stack.versions(id)).toEqual(['1:ENABLED']);
  });

  it('leaves the dead-letter topics empty and no canary anywhere', async () => {
    expect(await stack.deadLetters()).toBe(0);
    expect(await scanForCanaries(stack, canaries)).toEqual([]);
  });
});
