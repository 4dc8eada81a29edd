import * as k8s from '@kubernetes/client-node';
import { renderFencePolicy } from '../../../emulators/pullsecret/management-cluster/fence-policy';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import type { NamespaceLayout } from '../../../shared/pull-secret/namespace-layout';
import { dockerConfig, failureOf } from '../../helpers/kubernetes';
import { apisFor } from './kube-clients';

/**
 * The fence Terraform renders (management-cluster-fence.yaml.tftpl), installed in the emulator for
 * the job's identity, enforced by the emulator's ValidatingAdmissionPolicy support: the job may
 * write only its own managed dockerconfigjson Secrets; everything else is refused with the real
 * API server's 403 and message, and nothing changes; other identities are not fenced.
 */
const JOB = 'pullsecret-job@local-project.iam.gserviceaccount.com';
const JOB_TOKEN = 'job-token-0123456789';
const POLICY = 'hyperfleet-pullsecret-fence';
const MERGE_PATCH = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const NS = 'clusters-fence';

const denied = (name: string, message: string) =>
  `secrets "${name}" is forbidden: ValidatingAdmissionPolicy '${POLICY}' with binding '${POLICY}' denied request: ${message}`;
const TYPE_MESSAGE = (type: string) =>
  `the pull secret job may only write Secrets of type kubernetes.io/dockerconfigjson, not ${type}`;
const LABEL_MESSAGE =
  'the pull secret job may only write Secrets labelled managed-by=hyperfleet, adapter=pullsecret and cluster-id';
const OWNER_MESSAGE =
  'the pull secret job may not change or delete a Secret it does not own (a kubernetes.io/dockerconfigjson Secret labelled managed-by=hyperfleet, adapter=pullsecret and cluster-id)';
/** Cluster "fence": its pull secret is fence-pull-secret in clusters-fence, the only one admitted. */
const OURS = { 'managed-by': 'hyperfleet', adapter: 'pullsecret', 'cluster-id': 'fence' };
const PULL_SECRET = 'fence-pull-secret';

describe('the admission fence in the Kubernetes emulator', () => {
  let emulator: KubeApiServerEmulator;
  let admin: ReturnType<typeof apisFor>;
  let job: ReturnType<typeof apisFor>;

  const managed = (name: string, labels: Record<string, string> = OURS): k8s.V1Secret => ({
    metadata: { name, labels },
    type: 'kubernetes.io/dockerconfigjson',
    data: dockerConfig(),
  });
  const mergePatch = (name: string, body: object) =>
    job.core.patchNamespacedSecret({ name, namespace: NS, body }, MERGE_PATCH);

  beforeAll(async () => {
    emulator = await startKubeApiServerEmulator({
      namespaces: [NS],
      rbac: {
        [JOB_TOKEN]: {
          user: JOB,
          rules: [
            {
              resources: ['secrets'],
              verbs: ['get', 'list', 'create', 'update', 'patch', 'delete'],
              namespaces: ['*'],
            },
          ],
        },
      },
    });
    admin = apisFor(emulator);
    job = apisFor(emulator, JOB_TOKEN);
    const [policy, binding] = renderFencePolicy(JOB) as unknown as [
      k8s.V1ValidatingAdmissionPolicy,
      k8s.V1ValidatingAdmissionPolicyBinding,
    ];
    await admin.admission.createValidatingAdmissionPolicy({ body: policy });
    await admin.admission.createValidatingAdmissionPolicyBinding({ body: binding });
    // A Secret the job does not own, written by an administrator.
    await admin.core.createNamespacedSecret({
      namespace: NS,
      body: { metadata: { name: 'foreign' }, type: 'Opaque', stringData: { token: 'x' } },
    });
  });
  afterAll(() => emulator.stop());

  it('the rendered policy is stored as the real server stores it (defaults filled in)', async () => {
    const stored = await admin.admission.readValidatingAdmissionPolicy({ name: POLICY });
    expect(stored.spec?.failurePolicy).toBe('Fail');
    expect(stored.spec?.matchConstraints?.matchPolicy).toBe('Equivalent');
    expect(stored.spec?.matchConditions?.[0]?.expression).toBe(
      `request.userInfo.username == '${JOB}'`,
    );
    const binding = await admin.admission.readValidatingAdmissionPolicyBinding({ name: POLICY });
    expect(binding.spec?.validationActions).toEqual(['Deny']);
  });

  it('lets the job create, patch and delete a managed dockerconfigjson Secret', async () => {
    await job.core.createNamespacedSecret({ namespace: NS, body: managed(PULL_SECRET) });
    const patched = await mergePatch(PULL_SECRET, {
      metadata: { annotations: { note: 'rotated' } },
    });
    expect(patched.metadata?.annotations).toEqual({ note: 'rotated' });
    await job.core.replaceNamespacedSecret({
      name: PULL_SECRET,
      namespace: NS,
      body: { ...managed(PULL_SECRET), data: dockerConfig('{"auths":{}}') },
    });
    await job.core.deleteNamespacedSecret({ name: PULL_SECRET, namespace: NS });
    expect(
      await failureOf(admin.core.readNamespacedSecret({ name: PULL_SECRET, namespace: NS })),
    ).toMatchObject({ code: 404 });
  });

  it('refuses the job an Opaque Secret (403 Forbidden, the policy message), and stores nothing', async () => {
    const failure = await failureOf(
      job.core.createNamespacedSecret({
        namespace: NS,
        body: {
          metadata: { name: 'opaque', labels: { 'managed-by': 'hyperfleet' } },
          type: 'Opaque',
          stringData: { a: 'b' },
        },
      }),
    );
    expect(failure).toEqual({
      code: 403,
      reason: 'Forbidden',
      message: denied('opaque', TYPE_MESSAGE('Opaque')),
      details: {
        name: 'opaque',
        kind: 'secrets',
        causes: [
          {
            message: denied('opaque', TYPE_MESSAGE('Opaque')).replace(
              'secrets "opaque" is forbidden: ',
              '',
            ),
          },
        ],
      },
    });
    expect(
      await failureOf(admin.core.readNamespacedSecret({ name: 'opaque', namespace: NS })),
    ).toMatchObject({ code: 404 });
  });

  it('refuses the job a Secret without the managed-by label', async () => {
    const failure = await failureOf(
      job.core.createNamespacedSecret({ namespace: NS, body: managed(PULL_SECRET, {}) }),
    );
    expect(failure).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: denied(PULL_SECRET, LABEL_MESSAGE),
    });
    expect(
      await failureOf(admin.core.readNamespacedSecret({ name: PULL_SECRET, namespace: NS })),
    ).toMatchObject({ code: 404 });
  });

  it('refuses the job a patch or a delete of a Secret it does not own, which stays as it was', async () => {
    const before = await admin.core.readNamespacedSecret({ name: 'foreign', namespace: NS });
    expect(
      await failureOf(
        mergePatch('foreign', { metadata: { labels: { 'managed-by': 'hyperfleet' } } }),
      ),
    ).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: denied('foreign', OWNER_MESSAGE),
    });
    expect(
      await failureOf(job.core.deleteNamespacedSecret({ name: 'foreign', namespace: NS })),
    ).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: denied('foreign', OWNER_MESSAGE),
    });
    const after = await admin.core.readNamespacedSecret({ name: 'foreign', namespace: NS });
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
    expect(after.metadata?.labels).toBeUndefined();
  });

  it('refuses the job a dockerconfigjson Secret without the label even when it adds the label (not its own)', async () => {
    await admin.core.createNamespacedSecret({
      namespace: NS,
      body: managed('someone-elses', { team: 'x' }),
    });
    expect(
      await failureOf(
        mergePatch('someone-elses', { metadata: { labels: { 'managed-by': 'hyperfleet' } } }),
      ),
    ).toMatchObject({
      code: 403,
      message: denied('someone-elses', OWNER_MESSAGE),
    });
  });

  it('refuses the job removing the label from its own Secret', async () => {
    await job.core.createNamespacedSecret({ namespace: NS, body: managed(PULL_SECRET) });
    const before = await admin.core.readNamespacedSecret({ name: PULL_SECRET, namespace: NS });
    expect(
      await failureOf(mergePatch(PULL_SECRET, { metadata: { labels: { 'managed-by': null } } })),
    ).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: denied(PULL_SECRET, LABEL_MESSAGE),
    });
    const after = await admin.core.readNamespacedSecret({ name: PULL_SECRET, namespace: NS });
    expect(after.metadata?.labels).toEqual(OURS);
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
  });

  it("orders a rotation by the default's version: at the same generation the job may raise hyperfleet.io/default-version, never lower or remove it (403, the policy message), and the Secret stays as it was", async () => {
    const name = 'fence-pull-secret';
    const stamped = (generation: string, defaultVersion: string | null) => ({
      metadata: {
        annotations: {
          'hyperfleet.io/generation': generation,
          'hyperfleet.io/default-version': defaultVersion,
        },
      },
    });
    // The cases above may have left theirs: start from none.
    await admin.core.deleteNamespacedSecret({ name, namespace: NS }).catch(() => undefined);
    await job.core.createNamespacedSecret({
      namespace: NS,
      body: {
        ...managed(name),
        metadata: {
          name,
          labels: OURS,
          annotations: { 'hyperfleet.io/generation': '5', 'hyperfleet.io/default-version': '9' },
        },
      },
    });
    // 10 after 9: a number, not text ("10" < "9" as strings).
    await mergePatch(name, stamped('5', '10'));
    const refused = denied(
      name,
      "SupersededExecution: the pull secret job may not lower a Secret's hyperfleet.io/default-version at the same hyperfleet.io/generation (a rotation wrote a newer platform default)",
    );
    // A hostile (or lagging) lowering, a removal, and a value that is not a number: all refused.
    for (const hostile of [
      stamped('5', '9'),
      stamped('5', '1'),
      stamped('5', null),
      stamped('5', 'x'),
    ])
      expect(await failureOf(mergePatch(name, hostile))).toMatchObject({
        code: 403,
        message: refused,
      });
    const kept = await admin.core.readNamespacedSecret({ name, namespace: NS });
    expect(kept.metadata?.annotations?.['hyperfleet.io/default-version']).toBe('10');
    // A newer generation is ordered by the generation stamp: any default version, or none.
    await mergePatch(name, stamped('6', '3'));
    await mergePatch(name, stamped('7', null));
    await job.core.deleteNamespacedSecret({ name, namespace: NS });
  });

  it('does not fence another identity (the administrator)', async () => {
    // Its own Secrets (no other test's): what the fence refuses the job (an Opaque Secret, a
    // managed Secret losing its label), the administrator does.
    await admin.core.createNamespacedSecret({ namespace: NS, body: managed('admin-managed') });
    const opaque = await admin.core.createNamespacedSecret({
      namespace: NS,
      body: { metadata: { name: 'admin-opaque' }, type: 'Opaque', stringData: { a: 'b' } },
    });
    expect(opaque.type).toBe('Opaque');
    const unlabelled = await admin.core.patchNamespacedSecret(
      {
        name: 'admin-managed',
        namespace: NS,
        body: { metadata: { labels: { 'managed-by': null } } },
      },
      MERGE_PATCH,
    );
    expect(unlabelled.metadata?.labels).toEqual({ adapter: 'pullsecret', 'cluster-id': 'fence' });
    await admin.core.deleteNamespacedSecret({ name: 'admin-opaque', namespace: NS });
    expect(
      await failureOf(admin.core.readNamespacedSecret({ name: 'admin-opaque', namespace: NS })),
    ).toMatchObject({ code: 404 });
  });

  it('RBAC still comes first: a forbidden verb is refused by RBAC, not by the policy', async () => {
    const reader = apisFor(emulator, 'reader-token-0123456789');
    emulator.grant({
      'reader-token-0123456789': {
        user: JOB,
        rules: [{ resources: ['secrets'], verbs: ['get'], namespaces: ['*'] }],
      },
    });
    const failure = await failureOf(
      reader.core.createNamespacedSecret({ namespace: NS, body: managed('x', {}) }),
    );
    expect(failure.message).toBe(
      `secrets is forbidden: User "${JOB}" cannot create resource "secrets" in API group "" in the namespace "${NS}"`,
    );
  });
});

/**
 * The operator's namespace layout in the fence: with one shared namespace (seed 004's `clusters`)
 * the job writes `{id}-pull-secret` there and nowhere else; during a migration it may still delete
 * its copy in the previous layout, never write there. A hostile place (another cluster's name, a
 * system namespace, the other layout's namespace) is refused by the cluster itself.
 */
describe.each<[string, NamespaceLayout]>([
  ['one shared namespace', { template: 'clusters' }],
  [
    'migrating to the shared namespace (keep-previous)',
    { template: 'clusters', migration: { previous: 'clusters-{id}', phase: 'keep-previous' } },
  ],
])('the admission fence with the layout: %s', (_, layout) => {
  let emulator: KubeApiServerEmulator;
  let admin: ReturnType<typeof apisFor>;
  let job: ReturnType<typeof apisFor>;
  const secret = (name: string, clusterId: string): k8s.V1Secret => ({
    metadata: { name, labels: { ...OURS, 'cluster-id': clusterId } },
    type: 'kubernetes.io/dockerconfigjson',
    data: dockerConfig(),
  });
  const create = (namespace: string, name: string, clusterId: string) =>
    failureOf(job.core.createNamespacedSecret({ namespace, body: secret(name, clusterId) }));

  beforeAll(async () => {
    emulator = await startKubeApiServerEmulator({
      namespaces: ['clusters', 'clusters-a', 'clusters-b', 'kube-system'],
      rbac: {
        [JOB_TOKEN]: {
          user: JOB,
          rules: [
            { resources: ['secrets'], verbs: ['create', 'patch', 'delete'], namespaces: ['*'] },
          ],
        },
      },
    });
    admin = apisFor(emulator);
    job = apisFor(emulator, JOB_TOKEN);
    const [policy, binding] = renderFencePolicy(JOB, { layout }) as unknown as [
      k8s.V1ValidatingAdmissionPolicy,
      k8s.V1ValidatingAdmissionPolicyBinding,
    ];
    await admin.admission.createValidatingAdmissionPolicy({ body: policy });
    await admin.admission.createValidatingAdmissionPolicyBinding({ body: binding });
  });
  afterAll(() => emulator.stop());

  it("admits each cluster's own Secret in the shared namespace, side by side", async () => {
    for (const id of ['a', 'b']) {
      const created = await job.core.createNamespacedSecret({
        namespace: 'clusters',
        body: secret(`${id}-pull-secret`, id),
      });
      expect(created.metadata?.namespace).toBe('clusters');
    }
  });

  it.each([
    ['clusters-a', 'a-pull-secret', 'a', 'the per-cluster namespace of the other layout'],
    ['clusters', 'b-pull-secret', 'a', "another cluster's name"],
    ['kube-system', 'a-pull-secret', 'a', 'a system namespace'],
  ])('refuses writing %s/%s for cluster %s (%s), naming the layout', async (ns, name, id) => {
    const failure = await create(ns, name, id);
    expect(failure).toMatchObject({ code: 403, reason: 'Forbidden' });
    expect(failure?.message).toContain(
      `the pull secret job may only write the Secret CLUSTER-pull-secret in namespace clusters`,
    );
    // Nothing of cluster a's is stored at that name (b's own Secret, from the first case, stays b's).
    const stored = await admin.core.listNamespacedSecret({ namespace: ns });
    const written = stored.items.filter(
      (s) => s.metadata?.name === name && s.metadata.labels?.['cluster-id'] === id,
    );
    expect(written).toEqual([]);
  });

  it(
    layout.migration
      ? "deletes its copy in the previous layout (clusters-a), never another's"
      : 'refuses deleting a copy outside the layout, even its own',
    async () => {
      await admin.core.createNamespacedSecret({
        namespace: 'clusters-a',
        body: secret('a-pull-secret', 'a'),
      });
      await admin.core.createNamespacedSecret({
        namespace: 'clusters-b',
        body: secret('a-pull-secret', 'a'),
      });
      // The job reads its Secret with a dry-run patch before removing it: admitted while
      // migrating (a dry run stores nothing); the same patch for real is a write, refused.
      const patchOwn = (dryRun?: 'All') =>
        job.core.patchNamespacedSecret(
          {
            name: 'a-pull-secret',
            namespace: 'clusters-a',
            body: { metadata: { annotations: { note: 'x' } } },
            ...(dryRun ? { dryRun } : {}),
          },
          MERGE_PATCH,
        );
      expect(await failureOf(patchOwn())).toMatchObject({ code: 403 });
      const deleteOwn = () =>
        job.core.deleteNamespacedSecret({ name: 'a-pull-secret', namespace: 'clusters-a' });
      if (layout.migration) {
        await patchOwn('All');
        await deleteOwn();
      } else {
        expect(await failureOf(patchOwn('All'))).toMatchObject({ code: 403 });
        expect(await failureOf(deleteOwn())).toMatchObject({ code: 403 });
      }
      // Labelled a, but in b's namespace: not a's place in either layout.
      expect(
        await failureOf(
          job.core.deleteNamespacedSecret({ name: 'a-pull-secret', namespace: 'clusters-b' }),
        ),
      ).toMatchObject({ code: 403 });
    },
  );
});
