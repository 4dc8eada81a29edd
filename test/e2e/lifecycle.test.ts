import { randomUUID } from 'node:crypto';
import { PubSub } from '@google-cloud/pubsub';
import { demoClusterSpec } from '../../emulators/stack/demo';
import { reconcileEvent } from '../../emulators/sentinel/sentinel';
import { readOwnStatus } from '../../shared/hyperfleet/pullsecret-status';
import { canaryPullSecret, leaks, type Canary } from '../helpers/canary';
import { startTestStack, type TestStack } from '../helpers/stack';

const PROJECT = 'demo-customer-project';

describe('end to end on the local stack: lifecycle', () => {
  let stack: TestStack;
  const canaries: Canary[] = [];

  beforeAll(async () => {
    stack = await startTestStack();
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  const create = async (name: string, canary: Canary, extra: Record<string, unknown> = {}) => {
    canaries.push(canary);
    return (
      await stack.api.createCluster({
        name,
        spec: { ...demoClusterSpec(canary.text, PROJECT), ...extra },
      })
    ).id;
  };
  const converged = (id: string, generation: number) =>
    stack.waitFor(
      `cluster ${id} PullsecretSuccessful=True at generation ${generation}`,
      async () => {
        const cluster = await stack.cluster(id);
        const condition = cluster?.status?.conditions.find(
          (c) => c.type === 'PullsecretSuccessful',
        );
        return condition?.status === 'True' &&
          condition.observed_generation === generation &&
          cluster?.generation === generation
          ? cluster
          : undefined;
      },
    );
  const versions = async (id: string) => {
    const [list] = await stack.sm.listSecretVersions({
      parent: `projects/${PROJECT}/secrets/hyperfleet-${id}-pull-secret`,
    });
    return list.map((v) => `${v.name?.split('/').pop()}:${v.state}`);
  };
  const latest = async (id: string) => {
    const [version] = await stack.sm.accessSecretVersion({
      name: `projects/${PROJECT}/secrets/hyperfleet-${id}-pull-secret/versions/latest`,
    });
    return version.payload?.data?.toString();
  };
  const k8sSecret = (id: string) =>
    stack.kube.get(`/api/v1/namespaces/clusters-${id}/secrets/${id}-pull-secret`);
  const k8sData = async (id: string) =>
    Buffer.from(
      ((await k8sSecret(id))?.data as Record<string, string>)['.dockerconfigjson'] ?? '',
      'base64',
    ).toString();
  const executionsFor = async (id: string) =>
    (await stack.executions()).filter((e) => e.env.CLUSTER_ID === id);
  const kubeWrites = async () =>
    (await stack.requests('kube-apiserver')).filter(
      (r) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method) && r.target.includes('/secrets'),
    );
  const smAdds = async () =>
    (await stack.requests('secret-manager')).filter((r) => r.method === 'AddSecretVersion');

  let id: string;
  const first = canaryPullSecret('lifecycle-1');

  it('1. a new ready cluster converges: one execution, one version, the Secret, all conditions True', async () => {
    id = await create('e2e-lifecycle', first);
    await converged(id, 1);
    expect(await executionsFor(id)).toHaveLength(1);
    expect(await versions(id)).toEqual(['1:ENABLED']);
    expect(await latest(id)).toBe(first.text);
    const secret = await k8sSecret(id);
    expect(secret).toMatchObject({
      type: 'kubernetes.io/dockerconfigjson',
      metadata: { labels: { 'managed-by': 'hyperfleet', 'cluster-id': id } },
    });
    expect(await k8sData(id)).toBe(first.text);
    const own = readOwnStatus(await stack.api.listStatuses(id));
    expect(own).toMatchObject({
      observedGeneration: 1,
      available: 'True',
      availableReason: 'PullSecretProvisioned',
      health: 'True',
    });
    const status = (await stack.api.listStatuses(id)).find((s) => s.adapter === 'pullsecret');
    expect(status?.conditions.map((c) => `${c.type}=${c.status}`).sort()).toEqual([
      'Applied=True',
      'Available=True',
      'Health=True',
    ]);
    expect(status?.data).toMatchObject({
      secret_path: `projects/${PROJECT}/secrets/hyperfleet-${id}-pull-secret`,
      secret_version: '1',
      kubernetes_secret: { namespace: `clusters-${id}`, name: `${id}-pull-secret` },
      pull_secret_name: `${id}-pull-secret`,
      execution: expect.stringContaining('/executions/'),
    });
  });

  it('2. a pull secret PATCH adds exactly one version and updates the Secret; a labels-only PATCH writes nothing', async () => {
    const second = canaryPullSecret('lifecycle-2');
    canaries.push(second);
    await stack.api.patchCluster(id, { spec: { pullSecret: { data: second.text } } });
    await converged(id, 2);
    expect(await versions(id)).toEqual(['2:ENABLED', '1:ENABLED']);
    expect(await k8sData(id)).toBe(second.text);

    const writesBefore = (await kubeWrites()).length;
    const addsBefore = (await smAdds()).length;
    await stack.api.patchCluster(id, { labels: { team: 'platform' } });
    await converged(id, 3);
    expect(await versions(id)).toEqual(['2:ENABLED', '1:ENABLED']);
    expect((await kubeWrites()).length).toBe(writesBefore);
    expect((await smAdds()).length).toBe(addsBefore);
    expect(await executionsFor(id)).toHaveLength(3);
  });

  it('3. twenty duplicate events and a running Sentinel cause no further executions, versions or writes', async () => {
    const executions = (await executionsFor(id)).length;
    const writes = (await kubeWrites()).length;
    const adds = (await smAdds()).length;
    const pubsub = new PubSub({
      projectId: stack.d.project,
      apiEndpoint: stack.d.endpoints.pubsub,
      emulatorMode: true,
    });
    const event = reconcileEvent({ id, generation: 3 });
    const topic = pubsub.topic('hyperfleet-system-clusters');
    await Promise.all(
      Array.from({ length: 20 }, () =>
        topic.publishMessage({
          data: Buffer.from(JSON.stringify(event)),
          attributes: { _watermill_message_uuid: randomUUID() },
        }),
      ),
    );
    await pubsub.close();
    // Sentinel re-publishes a reconciled cluster every 2 s here (30 min in production): 12 s is 6 more rounds.
    const sentinelBefore = (
      stack.logText().match(new RegExp(`"cluster_id":"${id}"[^\\n]*"decision":"published"`, 'g')) ??
      []
    ).length;
    await new Promise((r) => setTimeout(r, 12_000));
    const sentinelAfter = (
      stack.logText().match(new RegExp(`"cluster_id":"${id}"[^\\n]*"decision":"published"`, 'g')) ??
      []
    ).length;
    expect(sentinelAfter - sentinelBefore).toBeGreaterThanOrEqual(4);
    expect((await executionsFor(id)).length).toBe(executions);
    expect((await kubeWrites()).length).toBe(writes);
    expect((await smAdds()).length).toBe(adds);
    const upToDate = (
      stack
        .logText()
        .match(new RegExp(`"cluster_id":"${id}"[^\\n]*"decision":"up-to-date"`, 'g')) ?? []
    ).length;
    expect(upToDate).toBeGreaterThanOrEqual(20);
  }, 40_000);

  it('merges an additional pull secret (additional entry wins) and restores the original when it is removed', async () => {
    const base = canaryPullSecret('additional-base', ['quay.io', 'registry.redhat.io']);
    const extra = canaryPullSecret('additional-extra', ['quay.io', 'registry.example.com']);
    canaries.push(extra);
    const withExtra = await create('e2e-additional', base, {});
    await converged(withExtra, 1);
    await stack.api.patchCluster(withExtra, {
      spec: { pullSecret: { data: base.text, additional: JSON.parse(extra.text) as object } },
    });
    await converged(withExtra, 2);
    const merged = JSON.parse((await latest(withExtra)) ?? '{}') as {
      auths: Record<string, { auth: string }>;
    };
    expect(Object.keys(merged.auths).sort()).toEqual([
      'quay.io',
      'registry.example.com',
      'registry.redhat.io',
    ]);
    const baseAuths = (JSON.parse(base.text) as typeof merged).auths;
    const extraAuths = (JSON.parse(extra.text) as typeof merged).auths;
    expect(merged.auths['quay.io']?.auth).toBe(extraAuths['quay.io']?.auth);
    expect(merged.auths['registry.redhat.io']?.auth).toBe(baseAuths['registry.redhat.io']?.auth);
    expect(await k8sData(withExtra)).toBe(await latest(withExtra));

    await stack.api.patchCluster(withExtra, {
      spec: { pullSecret: { data: base.text, additional: null } } as never,
    });
    await converged(withExtra, 3);
    expect(await latest(withExtra)).toBe(base.text);
    expect(await k8sData(withExtra)).toBe(base.text);
  });

  it('6. delete: Finalized, both secrets removed, the cluster hard-deleted', async () => {
    await stack.api.deleteCluster(id);
    await stack.waitFor(
      `cluster ${id} hard-deleted`,
      async () => (await stack.cluster(id)) === undefined,
    );
    await expect(
      stack.sm.getSecret({ name: `projects/${PROJECT}/secrets/hyperfleet-${id}-pull-secret` }),
    ).rejects.toMatchObject({ code: 5 });
    expect(await k8sSecret(id)).toBeUndefined();
    const deletes = (await executionsFor(id)).filter((e) => e.env.OPERATION === 'delete');
    expect(deletes).toHaveLength(1);
    expect(stack.logText()).toMatch(
      new RegExp(
        `"decision":"report-finalized"[^\\n]*|"cluster_id":"${id}"[^\\n]*"decision":"report-finalized"`,
      ),
    );
  }, 40_000);

  it('8. no pull secret, auth string or password appears in any log, state file or execution spec', async () => {
    const state = JSON.stringify(stack.d) + JSON.stringify(await stack.executions());
    expect(leaks(stack.logText() + state, canaries)).toEqual([]);
    expect(await stack.deadLetters()).toBe(0);
  });
});
