import { randomUUID } from 'node:crypto';
import { PubSub } from '@google-cloud/pubsub';
import { reconcileEvent } from '../../emulators/pullsecret/sentinel/sentinel';
import { canaryPullSecret, type Canary } from '../helpers/canary';
import { defaultPullSecretCanaries, scanForCanaries } from '../helpers/secret-scan';
import { leftAfterDelete } from '../helpers/secret-manager';
import { CUSTOMER_PROJECT, startTestStack, type TestStack } from '../helpers/stack';

/** The fields of a component's log line read here (Cloud Logging's JSON, one object a line). */
interface DecisionLine {
  readonly timestamp: { readonly seconds: number; readonly nanos: number };
  readonly metadata: { readonly decision?: string };
}

describe('end to end on the local stack: lifecycle', () => {
  let stack: TestStack;
  const canaries: Canary[] = [];

  beforeAll(async () => {
    stack = await startTestStack();
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  const canary = (label: string, registries?: string[]) => {
    const c = canaryPullSecret(label, registries);
    canaries.push(c);
    return c;
  };
  const latest = async (id: string) => {
    const [version] = await stack.sm.accessSecretVersion({
      name: `projects/${CUSTOMER_PROJECT}/secrets/hyperfleet-${id}-pull-secret/versions/latest`,
    });
    return version.payload?.data?.toString();
  };
  const k8sSecret = (id: string) => stack.secretOf(id);
  const k8sData = async (id: string) =>
    Buffer.from(
      ((await k8sSecret(id))?.data as Record<string, string>)['.dockerconfigjson'] ?? '',
      'base64',
    ).toString();
  const smAdds = async () =>
    (await stack.requests('secret-manager')).filter((r) => r.method === 'AddSecretVersion');
  const smDeletes = async (id: string) =>
    (await stack.requests('secret-manager')).filter(
      (r) =>
        r.method === 'DeleteSecret' &&
        r.outcome === 'OK' &&
        r.target.endsWith(`/hyperfleet-${id}-pull-secret`),
    );
  /**
   * Executions per generation, e.g. `{"1": 1}`. The stack runs two adapter instances (as Cloud Run
   * scales out), and a delivery taken by each at once can launch a second execution for a
   * generation: the HyperFleet API has no compare-and-set to stop that. What must be exactly-once
   * are the effects (versions, Kubernetes writes, deletions), asserted beside each count.
   */
  const executionsByGeneration = async (id: string, operation = 'apply') => {
    const counts: Record<string, number> = {};
    for (const e of await stack.executionsFor(id))
      if ((e.env.OPERATION ?? 'apply') === operation)
        counts[e.env.GENERATION ?? '?'] = (counts[e.env.GENERATION ?? '?'] ?? 0) + 1;
    return counts;
  };
  const atLeastOneEach = (counts: Record<string, number>, generations: number[]) => {
    expect(Object.keys(counts).sort()).toEqual(generations.map(String).sort());
    if (Object.values(counts).some((n) => n > 1))
      console.log(
        `more than one execution for a generation (effects checked): ${JSON.stringify(counts)}`,
      );
  };
  const decisions = (id: string, decision: string) =>
    (
      stack
        .logText()
        .match(new RegExp(`"cluster_id":"${id}"[^\\n]*"decision":"${decision}"`, 'g')) ?? []
    ).length;
  /**
   * The decisions `component` logged about the cluster since `since` (ms), by the time of each
   * line (each process writes its own file): Sentinel's `published`, or the adapter instances'
   * decision on each event they handled.
   */
  const decisionsSince = (component: string, id: string, since: number) =>
    stack
      .logText()
      .split('\n')
      .filter(
        (line) =>
          line.startsWith('{') &&
          line.includes(`"component":"${component}"`) &&
          line.includes(`"cluster_id":"${id}"`),
      )
      .map((line) => JSON.parse(line) as DecisionLine)
      .filter(
        (line) =>
          line.metadata.decision !== undefined &&
          line.timestamp.seconds * 1000 + line.timestamp.nanos / 1e6 >= since,
      )
      .map((line) => line.metadata.decision);

  let id: string;

  it('1. a new ready cluster converges: one version, one Kubernetes write, the Secret, all conditions True', async () => {
    const first = canary('lifecycle-1');
    id = await stack.createCluster('e2e-lifecycle', first.text);
    await stack.converged(id, 1);
    atLeastOneEach(await executionsByGeneration(id), [1]);
    expect(await stack.versions(id)).toEqual(['1:ENABLED']);
    expect((await stack.kubeWrites(id)).map((w) => w.method)).toEqual(['POST']);
    expect(await latest(id)).toBe(first.text);
    expect(await k8sSecret(id)).toMatchObject({
      type: 'kubernetes.io/dockerconfigjson',
      metadata: { labels: { 'managed-by': 'hyperfleet', 'cluster-id': id } },
    });
    expect(await k8sData(id)).toBe(first.text);
    expect(await stack.own(id)).toMatchObject({
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
      secret_path: `projects/${CUSTOMER_PROJECT}/secrets/hyperfleet-${id}-pull-secret`,
      secret_version: '1',
      kubernetes_secret: { namespace: stack.namespaceOf(id), name: `${id}-pull-secret` },
      pull_secret_name: `${id}-pull-secret`,
      execution: expect.stringContaining('/executions/'),
    });
  });

  it('2. a pull secret PATCH adds exactly one version and updates the Secret; a labels-only PATCH only stamps its generation', async () => {
    const second = canary('lifecycle-2');
    await stack.api.patchCluster(id, { spec: { pullSecret: { data: second.text } } });
    await stack.converged(id, 2);
    expect(await stack.versions(id)).toEqual(['2:ENABLED', '1:DESTROYED']);
    expect(await k8sData(id)).toBe(second.text);

    const writesBefore = (await stack.kubeWrites(id)).length;
    const addsBefore = (await smAdds()).length;
    await stack.api.patchCluster(id, { labels: { team: 'platform' } });
    await stack.converged(id, 3);
    expect(await stack.versions(id)).toEqual(['2:ENABLED', '1:DESTROYED']);
    // The bytes are unchanged: no version; the one Kubernetes write stamps generation 3 on the
    // Secret (stamped whenever the stored stamp is older), its data as it was.
    expect((await stack.kubeWrites(id)).length).toBe(writesBefore + 1);
    expect(await k8sData(id)).toBe(second.text);
    expect((await smAdds()).length).toBe(addsBefore);
    atLeastOneEach(await executionsByGeneration(id), [1, 2, 3]);
  });

  it('3. twenty duplicate events and a running Sentinel cause no further executions, versions or writes', async () => {
    const executions = (await stack.executionsFor(id)).length;
    const writes = (await stack.kubeWrites(id)).length;
    const adds = (await smAdds()).length;
    const startedAt = Date.now();
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
    // Sentinel re-publishes a reconciled cluster every 2 s here (30 min in production): wait
    // until it has done so four more times and the adapter has handled those and the copies.
    await stack.waitFor(
      'four more Sentinel rounds, and every event handled',
      async () => {
        const rounds = decisionsSince('sentinel', id, startedAt).length;
        const handled = decisionsSince('pullsecret-adapter', id, startedAt).length;
        return rounds >= 4 && handled >= 20 + rounds;
      },
      60_000,
    );
    expect((await stack.executionsFor(id)).length).toBe(executions);
    expect((await stack.kubeWrites(id)).length).toBe(writes);
    expect((await smAdds()).length).toBe(adds);
    expect(new Set(decisionsSince('pullsecret-adapter', id, startedAt))).toEqual(
      new Set(['up-to-date']),
    );
  }, 90_000);

  it('merges an additional pull secret (additional entry wins) and restores the original when it is removed', async () => {
    const base = canary('additional-base', ['quay.io', 'registry.redhat.io']);
    const extra = canary('additional-extra', ['quay.io', 'registry.example.com']);
    const withExtra = await stack.createCluster('e2e-additional', base.text);
    await stack.converged(withExtra, 1);
    await stack.api.patchCluster(withExtra, {
      spec: { pullSecret: { data: base.text, additional: JSON.parse(extra.text) as object } },
    });
    await stack.converged(withExtra, 2);
    type Auths = { auths: Record<string, { auth: string }> };
    const merged = JSON.parse((await latest(withExtra)) ?? '{}') as Auths;
    expect(Object.keys(merged.auths).sort()).toEqual([
      'quay.io',
      'registry.example.com',
      'registry.redhat.io',
    ]);
    expect(merged.auths['quay.io']?.auth).toBe(
      (JSON.parse(extra.text) as Auths).auths['quay.io']?.auth,
    );
    expect(merged.auths['registry.redhat.io']?.auth).toBe(
      (JSON.parse(base.text) as Auths).auths['registry.redhat.io']?.auth,
    );
    expect(await k8sData(withExtra)).toBe(await latest(withExtra));

    await stack.api.patchCluster(withExtra, {
      spec: { pullSecret: { data: base.text, additional: null } },
    });
    await stack.converged(withExtra, 3);
    expect(await latest(withExtra)).toBe(base.text);
    expect(await k8sData(withExtra)).toBe(base.text);
  });

  it('per-cluster data residency: an allowed region gets a user-managed secret there; another is refused naming the allowed ones', async () => {
    const inRegion = (locations: string[]) => ({
      platform: {
        type: 'gcp',
        gcp: {
          projectID: CUSTOMER_PROJECT,
          region: 'us-central1',
          zone: 'us-central1-a',
          secretReplication: { locations },
        },
      },
    });
    const allowed = await stack.createCluster(
      'e2e-residency-ok',
      canary('residency-ok').text,
      inRegion(['us-east1']),
    );
    const refused = await stack.createCluster(
      'e2e-residency-refused',
      canary('residency-refused').text,
      inRegion(['europe-west1']),
    );
    await stack.converged(allowed, 1);
    const [secret] = await stack.sm.getSecret({
      name: `projects/${CUSTOMER_PROJECT}/secrets/hyperfleet-${allowed}-pull-secret`,
    });
    expect(secret.replication?.userManaged?.replicas?.map((r) => r.location)).toEqual(['us-east1']);
    const health = await stack.waitFor(`cluster ${refused} refused InvalidReplication`, async () =>
      (await stack.own(refused))?.health === 'False' ? stack.api.listStatuses(refused) : undefined,
    );
    const condition = health
      .find((s) => s.adapter === 'pullsecret')
      ?.conditions.find((c) => c.type === 'Health');
    expect(condition?.reason).toBe('InvalidReplication');
    expect(condition?.message).toContain('europe-west1');
    expect(condition?.message).toContain('us-central1, us-east1');
    // Refused before anything was written: no secret in the tenant project, nothing on a cluster.
    await expect(
      stack.sm.getSecret({
        name: `projects/${CUSTOMER_PROJECT}/secrets/hyperfleet-${refused}-pull-secret`,
      }),
    ).rejects.toMatchObject({ code: 5 });
    expect(await stack.kubeWrites(refused)).toEqual([]);
  });

  it('6. delete: Finalized, both secrets removed, the cluster hard-deleted', async () => {
    await stack.api.deleteCluster(id);
    await stack.waitFor(
      `cluster ${id} hard-deleted`,
      async () => (await stack.cluster(id)) === undefined,
    );
    // Every version destroyed, the secret left as the delete's tombstone (never DeleteSecret).
    expect(
      await leftAfterDelete(
        stack.sm,
        `projects/${CUSTOMER_PROJECT}/secrets/hyperfleet-${id}-pull-secret`,
      ),
    ).toBe('tombstone');
    expect(await stack.ourSecrets(id)).toEqual([]);
    atLeastOneEach(await executionsByGeneration(id, 'delete'), [4]);
    expect(await smDeletes(id)).toEqual([]);
    expect((await stack.kubeWrites(id)).filter((w) => w.method === 'DELETE')).toHaveLength(1);
    expect(decisions(id, 'report-finalized')).toBeGreaterThanOrEqual(1);
  }, 40_000);

  it('7. a cluster without a pull secret in its spec converges on the platform default stack.json names; a version added there reaches it at once (the rotation)', async () => {
    // What stack.json says (the description it is written from): the secret, its project by id.
    expect(stack.d.defaultPullSecret).toBe(
      'projects/demo-hyperfleet/secrets/platform-default-pull-secret',
    );
    const defaultSecret = stack.d.defaultPullSecret!;
    const defaultBytes = async (version: string) =>
      (
        await stack.sm.accessSecretVersion({ name: `${defaultSecret}/versions/${version}` })
      )[0].payload?.data?.toString();
    const onDefault = await stack.createCluster('e2e-default', undefined);
    await stack.converged(onDefault, 1);
    const demo = await defaultBytes('1');
    expect(await k8sData(onDefault)).toBe(demo);
    const status = (await stack.api.listStatuses(onDefault)).find(
      (s) => s.adapter === 'pullsecret',
    );
    expect(status?.data).toMatchObject({
      pull_secret_source: 'platform-default',
      secret_path: `projects/${CUSTOMER_PROJECT}/secrets/hyperfleet-${onDefault}-pull-secret`,
    });
    expect(status?.data).not.toHaveProperty('secret_version');
    // The Secret names the default as configured (`latest`) and the version it was read from.
    const annotations = () =>
      k8sSecret(onDefault).then(
        (s) => (s?.metadata as { annotations?: Record<string, string> }).annotations,
      );
    expect(await annotations()).toMatchObject({
      'hyperfleet.io/gcp-secret-path': `${defaultSecret}/versions/latest`,
      'hyperfleet.io/gcp-secret-version': '1',
    });
    // The platform's credential never lands in the tenant project: its secret holds no version.
    expect(await stack.versions(onDefault)).toEqual([]);

    // A rotation: the operator adds a version. Secret Manager notifies the adapter, whose batch
    // execution brings it to every converged cluster on the default (test/e2e/rotation.test.ts).
    const rotated = canary('default-rotated');
    await stack.sm.addSecretVersion({
      parent: defaultSecret,
      payload: { data: Buffer.from(rotated.text) },
    });
    await stack.waitFor('the rotated default on the cluster', async () =>
      (await k8sData(onDefault)) === rotated.text ? true : undefined,
    );
    await stack.converged(onDefault, 1);
    expect(await annotations()).toMatchObject({ 'hyperfleet.io/gcp-secret-version': '2' });
    expect(await stack.versions(onDefault)).toEqual([]);
    // Both versions are canaries of the scan below (the demo one and the rotated one).
    expect((await defaultPullSecretCanaries(stack)).map((c) => c.text).sort()).toEqual(
      [demo, rotated.text].sort(),
    );
  });

  it('8. no pull secret, auth string or password in any log, status, Pub/Sub message, execution spec or state file', async () => {
    expect(stack.tappedMessages().length).toBeGreaterThan(20);
    expect(await scanForCanaries(stack, canaries)).toEqual([]);
    expect(await stack.deadLetters()).toBe(0);
  });
});
