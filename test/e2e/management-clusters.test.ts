import { randomUUID } from 'node:crypto';
import { demoClusterSpec } from '../../emulators/pullsecret/stack/demo';
import { canaryPullSecret, type Canary } from '../helpers/canary';
import { stackCloudTasksClient } from '../helpers/cloud-tasks';
import { scanForCanaries } from '../helpers/secret-scan';
import { adminJson, JOB_SCOPES } from '../helpers/metadata-token';
import { leftAfterDelete } from '../helpers/secret-manager';
import { CUSTOMER_PROJECT, idOn, startTestStack, type TestStack } from '../helpers/stack';

describe('end to end on the local stack: two management clusters, HyperShift, the fence', () => {
  let stack: TestStack;
  const canaries: Canary[] = [];

  beforeAll(async () => {
    stack = await startTestStack();
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  const create = async (name: string, id: string) => {
    const canary = canaryPullSecret(name);
    canaries.push(canary);
    return (
      await stack.api.createCluster({
        name,
        id,
        spec: demoClusterSpec(canary.text, CUSTOMER_PROJECT),
      })
    ).id;
  };
  const statusOf = async (id: string, adapter: string) =>
    (await stack.api.listStatuses(id)).find((s) => s.adapter === adapter);
  const conditions = async (id: string, adapter: string) =>
    (await statusOf(id, adapter))?.conditions.map((c) => `${c.type}=${c.status}:${c.reason ?? ''}`);
  const secretManagerSecret = (id: string) =>
    stack.sm.getSecret({
      name: `projects/${CUSTOMER_PROJECT}/secrets/hyperfleet-${id}-pull-secret`,
    });

  /** The handoff of seed 004, checked where our status data says the Secret is. */
  const expectHandoff = async (id: string, name: string, managementCluster: string) => {
    const own = await statusOf(id, 'pullsecret');
    expect(own?.data).toMatchObject({
      management_cluster: managementCluster,
      namespace: stack.namespaceOf(id),
      pull_secret_name: `${id}-pull-secret`,
      kubernetes_secret: {
        management_cluster: managementCluster,
        namespace: stack.namespaceOf(id),
        name: `${id}-pull-secret`,
      },
    });
    expect(await stack.ourSecrets(id)).toEqual([
      `${managementCluster} ${stack.namespaceOf(id)}/${id}-pull-secret`,
    ]);
    const hosted = await stack.hostedClusters(id);
    expect(hosted.map((h) => h.managementCluster)).toEqual([managementCluster]);
    expect(hosted[0]?.object).toMatchObject({
      apiVersion: 'hypershift.openshift.io/v1beta1',
      kind: 'HostedCluster',
      metadata: { name, namespace: stack.namespaceOf(id) },
      spec: { pullSecret: { name: `${id}-pull-secret` } },
    });
    const cluster = await stack.api.getCluster(id);
    const hypershift = await statusOf(id, 'hypershift');
    expect(hypershift?.observed_generation).toBe(cluster.generation);
    expect(hypershift?.data).toMatchObject({
      management_cluster: managementCluster,
      namespace: stack.namespaceOf(id),
    });
    expect(await conditions(id, 'hypershift')).toEqual([
      'Applied=True:HostedClusterApplied',
      'Available=True:PullSecretValid',
      'Health=True:NoErrors',
    ]);
  };

  let moving: { id: string; name: string };
  let checked: { id: string; name: string };

  it('hands off on each cluster: created → pullsecret → hypershift → Ready=True, the HostedCluster beside our Secret', async () => {
    const first = { id: idOn('mgmt-1'), name: 'e2e-handoff-1' };
    const second = { id: idOn('mgmt-2'), name: 'e2e-handoff-2' };
    await create(first.name, first.id);
    await create(second.name, second.id);
    await stack.ready(first.id);
    await stack.ready(second.id);
    await expectHandoff(first.id, first.name, 'mgmt-1');
    await expectHandoff(second.id, second.name, 'mgmt-2');
    // Ready is Reconciled=True, reached through hypershift's own Available at this generation.
    const cluster = await stack.api.getCluster(second.id);
    expect(cluster.status?.conditions.find((c) => c.type === 'HypershiftSuccessful')).toMatchObject(
      {
        status: 'True',
        observed_generation: 1,
      },
    );
    moving = first;
    checked = second;
  });

  it("HyperShift checks the Secret as its controller does: gone is PullSecretNotFound, garbage is PullSecretInvalid; the job's next generation heals it", async () => {
    const { id } = checked;
    const kube = stack.kubes.get('mgmt-2')!;
    const path = `/api/v1/namespaces/${stack.namespaceOf(id)}/secrets/${id}-pull-secret`;
    const hypershiftReason = (reason: string) =>
      stack.waitFor(`hypershift ${reason}`, async () => {
        const available = (await statusOf(id, 'hypershift'))?.conditions.find(
          (c) => c.type === 'Available',
        );
        return available?.reason === reason ? available : undefined;
      });
    // HyperShift's own checks are shown with the Secret left broken: the adapter repairs a drift
    // HyperShift reports at once (test/e2e/prompt-repairs.test.ts), so the launch queue is paused
    // (as an operator pauses it) until the next generation, and the repair waits in it.
    const tasks = stackCloudTasksClient(stack.d);
    // mgmt-2's own queue, where this cluster's repair would be launched (and the fleet's).
    const queues = [stack.d.launchQueue, `${stack.d.launchQueue}-mgmt-2`];
    for (const name of queues) await tasks.pauseQueue({ name });
    try {
      // An administrator removes our Secret behind the adapter's back.
      expect((await kube.request('DELETE', path)).status).toBe(200);
      expect((await hypershiftReason('PullSecretNotFound')).message).toContain(
        `Secret ${stack.namespaceOf(id)}/${id}-pull-secret in management cluster mgmt-2 not found`,
      );
      expect(
        (await stack.api.getCluster(id)).status?.conditions.find((c) => c.type === 'Reconciled')
          ?.status,
      ).toBe('False');
      // ... and puts back one Kubernetes accepts (valid JSON) but HyperShift cannot use (no auths).
      const garbage = {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: `${id}-pull-secret`,
          labels: { 'managed-by': 'hyperfleet', adapter: 'pullsecret', 'cluster-id': id },
        },
        type: 'kubernetes.io/dockerconfigjson',
        data: { '.dockerconfigjson': Buffer.from('{"credHelpers":{}}').toString('base64') },
      };
      expect(
        (await kube.request('POST', `/api/v1/namespaces/${stack.namespaceOf(id)}/secrets`, garbage))
          .status,
      ).toBe(201);
      await hypershiftReason('PullSecretInvalid');
      expect(await conditions(id, 'hypershift')).toContain('Health=False:PullSecretInvalid');
    } finally {
      for (const name of queues) await tasks.resumeQueue({ name });
      await tasks.close();
    }
    // A new generation: the job rewrites its Secret, HyperShift finds it valid, the cluster is Ready again.
    const { generation } = await stack.api.patchCluster(id, { labels: { healed: 'yes' } });
    await stack.converged(id, generation);
    await stack.ready(id);
    await expectHandoff(id, checked.name, 'mgmt-2');
  });

  it('an unknown management cluster (mgmt-9) is UnknownManagementCluster naming the known ones; nothing is written anywhere', async () => {
    const name = 'e2e-unknown-mgmt';
    await stack.placeNext(name, { managementCluster: 'mgmt-9' });
    const id = await create(name, randomUUID());
    const failed = await stack.waitFor('UnknownManagementCluster', async () => {
      const own = await stack.own(id);
      return own?.availableReason === 'UnknownManagementCluster' ? own : undefined;
    });
    expect(failed).toMatchObject({ available: 'False', health: 'False' });
    const message = (await statusOf(id, 'pullsecret'))?.conditions.find(
      (c) => c.type === 'Available',
    )?.message;
    expect(message).toContain('"mgmt-9"');
    expect(message).toContain('known: mgmt-1, mgmt-2');
    await expect(secretManagerSecret(id)).rejects.toMatchObject({ code: 5 });
    expect(await stack.ourSecrets(id)).toEqual([]);
    expect(await stack.kubeWrites(id)).toEqual([]);
    expect(await stack.hostedClusters(id)).toEqual([]);
    // HyperShift's precondition (pullsecret Available=True) does not hold: it does nothing.
    expect(await statusOf(id, 'hypershift')).toBeUndefined();
  });

  it('a move to the other cluster at a new generation: the Secret is written there and removed from the old place, the HostedCluster follows', async () => {
    const { id, name } = moving;
    const generation = await stack.move(id, { managementCluster: 'mgmt-2' });
    await stack.converged(id, generation);
    await stack.ready(id);
    await expectHandoff(id, name, 'mgmt-2');
    expect(await stack.secretIn('mgmt-1', stack.namespaceOf(id), id)).toBeUndefined();
  });

  it('the job reached mgmt-1 by its IP endpoint and mgmt-2 through Connect Gateway, as its service account email (its metadata-server token carries userinfo.email)', async () => {
    const { id } = moving;
    const d = stack.d;
    expect(d.managementClusters['mgmt-1']).toMatchObject({ mode: 'ip' });
    expect(d.managementClusters['mgmt-2']).toMatchObject({ mode: 'connect-gateway' });
    expect(d.managementClusters['mgmt-2']!.jobAccess.endpoint).toMatch(
      /^https:\/\/localhost:\d+\/v1\/projects\/\d+\/locations\/global\/gkeMemberships\/mgmt-2$/,
    );
    const writes = await stack.kubeWrites(id);
    expect([...new Set(writes.map((w) => w.managementCluster))].sort()).toEqual([
      'mgmt-1',
      'mgmt-2',
    ]);
    // GKE's user for the job is its email only with userinfo.email: the RBAC binding names it.
    expect(writes.filter((w) => w.identity !== d.jobIdentity)).toEqual([]);
    const gateway = (await adminJson(
      `${d.endpoints.connectGateway!}/_emulator/requests`,
      d.endpoints.publicCaFile,
    )) as {
      requests: { method: string; target: string; outcome: number }[];
    };
    const forwarded = gateway.requests.filter((r) =>
      r.target.startsWith(`/api/v1/namespaces/${stack.namespaceOf(id)}/secrets`),
    );
    expect(forwarded.length).toBeGreaterThan(0);
    const tokens = (await adminJson(`${d.endpoints.metadataServer}/_emulator/tokens`)) as {
      tokens: { email: string; scopes: string[] }[];
    };
    expect(tokens.tokens.length).toBeGreaterThan(0);
    // The token the job shows GKE carries userinfo.email (its Kubernetes user is then its email);
    // its Secret Manager client asks for cloud-platform alone, as the client library does.
    const jobTokens = tokens.tokens.filter((t) => t.email === d.jobIdentity);
    expect(jobTokens.some((t) => JOB_SCOPES.every((scope) => t.scopes.includes(scope)))).toBe(true);
  });

  it('deleting the moved cluster leaves nothing of ours in either cluster or in Secret Manager', async () => {
    const { id } = moving;
    await stack.api.deleteCluster(id);
    await stack.waitFor(
      `cluster ${id} hard-deleted`,
      async () => (await stack.cluster(id)) === undefined,
    );
    expect(await stack.ourSecrets(id)).toEqual([]);
    expect(await stack.hostedClusters(id)).toEqual([]);
    // Nothing was ever stored; the delete leaves its tombstone, which holds back a lagging apply.
    expect(
      await leftAfterDelete(
        stack.sm,
        `projects/${CUSTOMER_PROJECT}/secrets/hyperfleet-${id}-pull-secret`,
      ),
    ).toBe('tombstone');
  });

  it('the fence: the job wrote under it; its identity is refused a foreign Secret with the policy message; the admin is not', async () => {
    for (const [, reader] of stack.kubes)
      expect(
        await reader.get(
          '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/hyperfleet-pullsecret-fence',
        ),
      ).toMatchObject({ metadata: { name: 'hyperfleet-pullsecret-fence' } });
    const kube = stack.kubes.get('mgmt-2')!;
    const namespace = 'e2e-fence';
    await kube.ensureNamespace(namespace);
    const secrets = `/api/v1/namespaces/${namespace}/secrets`;
    const foreign = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'foreign' },
      type: 'Opaque',
      data: {},
    };
    expect((await kube.request('POST', secrets, foreign)).status).toBe(201);
    const denied = (answer: { status: number; body: string }) => {
      const body = JSON.parse(answer.body) as { reason: string; message: string };
      return { status: answer.status, reason: body.reason, message: body.message };
    };
    const policy = `ValidatingAdmissionPolicy 'hyperfleet-pullsecret-fence' with binding 'hyperfleet-pullsecret-fence' denied request`;
    // The job's own Google token: cluster-wide RBAC allows delete and create, the fence does not.
    const jobToken = await stack.jobToken();
    expect(denied(await kube.request('DELETE', `${secrets}/foreign`, undefined, jobToken))).toEqual(
      {
        status: 403,
        reason: 'Forbidden',
        message: `secrets "foreign" is forbidden: ${policy}: the pull secret job may not change or delete a Secret it does not own (a kubernetes.io/dockerconfigjson Secret labelled managed-by=hyperfleet, adapter=pullsecret and cluster-id)`,
      },
    );
    const opaque = {
      ...foreign,
      metadata: { name: 'job-opaque', labels: { 'managed-by': 'hyperfleet' } },
    };
    expect(denied(await kube.request('POST', secrets, opaque, jobToken))).toEqual({
      status: 403,
      reason: 'Forbidden',
      message: `secrets "job-opaque" is forbidden: ${policy}: the pull secret job may only write Secrets of type kubernetes.io/dockerconfigjson, not Opaque`,
    });
    // The admin is not fenced.
    expect((await kube.request('DELETE', `${secrets}/foreign`)).status).toBe(200);
  });

  it('no pull secret in any log, status, message or state file', async () => {
    expect(await scanForCanaries(stack, canaries)).toEqual([]);
  });
});
