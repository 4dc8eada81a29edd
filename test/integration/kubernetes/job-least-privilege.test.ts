// Issue 26, items 1 and 2, acted out as the job itself: its real Google token from the metadata
// server, its rights exactly what Terraform's templates render (RBAC + fence, applied with kubectl).
// The job's identity can read, change or delete no Secret it does not own, on any namespace; the
// fence admits exactly our pull secrets on CREATE, UPDATE and DELETE (DELETE judged on oldObject),
// with the real server's wording. Each case failed on the main branch before this change.
//
// What the emulator does here as the real API server does, and where that was checked:
// - a failed JSON patch `test` operation is 422 (k8s.io/apiserver endpoints/handlers/patch.go,
//   applyJSPatch: a patch that cannot be applied is StatusUnprocessableEntity), with no object;
// - admission runs on dry-run requests too ("Dry-run ... requests are processed by admission
//   controllers", kubernetes.io/docs/reference/using-api/api-concepts/#dry-run);
// - an update that changes nothing is not stored and keeps its resourceVersion (etcd3 store
//   GuaranteedUpdate returns the current object when the new bytes equal the stored ones);
// - a ValidatingAdmissionPolicy sees `oldObject` on DELETE and `object` null
//   (kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/#validation-expression);
// - matchConditions exclude requests before validations run (same page, "Matching requests").
import { startGoogleCluster, type GoogleCluster } from '../../helpers/google-cluster';
import { metadataServerToken } from '../../helpers/metadata-token';

const JOB = 'pullsecret-job@demo-platform.iam.gserviceaccount.com';
const A = 'cluster-a';
const B = 'cluster-b';
const POLICY = `ValidatingAdmissionPolicy 'hyperfleet-pullsecret-fence' with binding 'hyperfleet-pullsecret-fence' denied request`;
const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';

describe("the job's identity on a management cluster: least privilege and the fence (as the job)", () => {
  let cluster: GoogleCluster;
  let metadata: GoogleCluster['metadata'];
  let kube: GoogleCluster['kube'];
  let admin: GoogleCluster['admin'];
  let token: string;

  const pullSecret = (
    cluster: string,
    extra: {
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
      name?: string;
      type?: string;
    } = {},
  ) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: extra.name ?? `${cluster}-pull-secret`,
      labels: extra.labels ?? {
        'managed-by': 'hyperfleet',
        adapter: 'pullsecret',
        'cluster-id': cluster,
      },
      annotations: extra.annotations ?? { 'hyperfleet.io/generation': '5' },
    },
    type: extra.type ?? 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from('{"auths":{}}').toString('base64') },
  });
  const secrets = (namespace: string) => `/api/v1/namespaces/${namespace}/secrets`;
  /** A request as the job: its Google token, a content type for patches. */
  const asJob = (method: string, urlPath: string, body?: unknown, contentType?: string) =>
    new Promise<{ status: number; message: string; body: Record<string, unknown> }>(
      (resolve, reject) => {
        void import('node:https').then((https) => {
          const payload = body === undefined ? undefined : JSON.stringify(body);
          const req = https.request(
            `${kube.endpoint}${urlPath}`,
            {
              method,
              ca: kube.caPem,
              headers: {
                authorization: `Bearer ${token}`,
                ...(payload ? { 'content-type': contentType ?? 'application/json' } : {}),
              },
            },
            (res) => {
              let text = '';
              res.on('data', (chunk: Buffer) => (text += chunk.toString()));
              res.on('end', () => {
                const parsed = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
                resolve({
                  status: res.statusCode ?? 0,
                  message: String(parsed.message ?? ''),
                  body: parsed,
                });
              });
            },
          );
          req.on('error', reject);
          req.end(payload);
        });
      },
    );
  const ownershipTests = (cluster: string) => [
    { op: 'test', path: '/metadata/labels/managed-by', value: 'hyperfleet' },
    { op: 'test', path: '/metadata/labels/adapter', value: 'pullsecret' },
    { op: 'test', path: '/metadata/labels/cluster-id', value: cluster },
  ];

  beforeAll(async () => {
    cluster = await startGoogleCluster({
      serviceAccount: JOB,
      namespaces: [`clusters-${A}`, `clusters-${B}`, 'kube-system', 'hyperfleet-system'],
    });
    ({ metadata, kube, admin } = cluster);
    token = await metadataServerToken(metadata.endpoint);
    // What else lives on a management cluster: a control plane's secrets, another component's
    // Secret labelled managed-by=hyperfleet, and cluster B's pull secret.
    const create = async (namespace: string, body: object) =>
      expect((await admin.request('POST', secrets(namespace), body)).status).toBe(201);
    await create(`clusters-${A}`, {
      metadata: { name: 'admin-kubeconfig' },
      type: 'Opaque',
      stringData: { kubeconfig: 'x' },
    });
    await create(`clusters-${A}`, {
      metadata: { name: 'hyperfleet-other', labels: { 'managed-by': 'hyperfleet' } },
      type: 'Opaque',
      stringData: { a: 'b' },
    });
    await create(`clusters-${B}`, pullSecret(B));
  });
  afterAll(() => cluster.stop());

  it('cannot get, list or watch any Secret, its own included: no read verb at all (403)', async () => {
    expect((await asJob('GET', `${secrets(`clusters-${A}`)}/admin-kubeconfig`)).status).toBe(403);
    expect((await asJob('GET', `${secrets(`clusters-${B}`)}/${B}-pull-secret`)).status).toBe(403);
    expect((await asJob('GET', secrets(`clusters-${A}`))).status).toBe(403);
    expect((await asJob('GET', '/api/v1/secrets')).status).toBe(403);
    expect((await asJob('GET', `${secrets('kube-system')}?watch=true`)).status).toBe(403);
  });

  it('creates its own pull secret, reads it back through a no-op test patch (resourceVersion kept), updates and deletes it', async () => {
    const created = await asJob('POST', secrets(`clusters-${A}`), pullSecret(A));
    expect(created.status).toBe(201);
    const version = (created.body.metadata as { resourceVersion: string }).resourceVersion;
    const read = await asJob(
      'PATCH',
      `${secrets(`clusters-${A}`)}/${A}-pull-secret`,
      ownershipTests(A),
      JSON_PATCH,
    );
    expect(read.status).toBe(200);
    expect((read.body.metadata as { resourceVersion: string }).resourceVersion).toBe(version);
    const updated = await asJob(
      'PATCH',
      `${secrets(`clusters-${A}`)}/${A}-pull-secret`,
      { metadata: { annotations: { 'hyperfleet.io/generation': '6' } } },
      MERGE_PATCH,
    );
    expect(updated.status).toBe(200);
    expect((await asJob('DELETE', `${secrets(`clusters-${A}`)}/${A}-pull-secret`)).status).toBe(
      200,
    );
  });

  it('a test patch on a Secret that is not ours answers 422 and shows nothing of it', async () => {
    const answer = await asJob(
      'PATCH',
      `${secrets(`clusters-${A}`)}/admin-kubeconfig`,
      ownershipTests(A),
      JSON_PATCH,
    );
    expect(answer.status).toBe(422);
    expect(JSON.stringify(answer.body)).not.toContain('kubeconfig":');
    expect(answer.body).not.toHaveProperty('data');
    // Cluster B's pull secret passes no test for cluster A either.
    expect(
      (
        await asJob(
          'PATCH',
          `${secrets(`clusters-${B}`)}/${B}-pull-secret`,
          ownershipTests(A),
          JSON_PATCH,
        )
      ).status,
    ).toBe(422);
  });

  it.each([
    [
      "deleting another component's Opaque Secret labelled managed-by=hyperfleet",
      () => asJob('DELETE', `${secrets(`clusters-${A}`)}/hyperfleet-other`),
      'the pull secret job may not change or delete a Secret it does not own',
    ],
    [
      'deleting a control plane secret (no labels)',
      () => asJob('DELETE', `${secrets(`clusters-${A}`)}/admin-kubeconfig`),
      'the pull secret job may not change or delete a Secret it does not own',
    ],
    [
      "relabelling another cluster's pull secret as cluster A's",
      () =>
        asJob(
          'PATCH',
          `${secrets(`clusters-${B}`)}/${B}-pull-secret`,
          { metadata: { labels: { 'cluster-id': A } } },
          MERGE_PATCH,
        ),
      'the pull secret job may not change the labels managed-by, adapter or cluster-id of a Secret',
    ],
    [
      'creating a dockerconfigjson Secret in kube-system',
      () => asJob('POST', secrets('kube-system'), pullSecret(A)),
      `the pull secret job may only write the Secret CLUSTER-pull-secret in namespace clusters-CLUSTER, for the cluster its cluster-id label names; not kube-system/${A}-pull-secret`,
    ],
    [
      "creating cluster A's pull secret in cluster B's namespace",
      () => asJob('POST', secrets(`clusters-${B}`), pullSecret(A)),
      `the pull secret job may only write the Secret CLUSTER-pull-secret in namespace clusters-CLUSTER, for the cluster its cluster-id label names; not clusters-${B}/${A}-pull-secret`,
    ],
    [
      'creating a Secret under another name in its own namespace',
      () => asJob('POST', secrets(`clusters-${A}`), pullSecret(A, { name: 'extra' })),
      `the pull secret job may only write the Secret CLUSTER-pull-secret in namespace clusters-CLUSTER, for the cluster its cluster-id label names; not clusters-${A}/extra`,
    ],
    [
      'creating an Opaque Secret labelled as ours',
      () => asJob('POST', secrets(`clusters-${A}`), pullSecret(A, { type: 'Opaque' })),
      'the pull secret job may only write Secrets of type kubernetes.io/dockerconfigjson, not Opaque',
    ],
    [
      'creating a pull secret without the adapter label',
      () =>
        asJob(
          'POST',
          secrets(`clusters-${A}`),
          pullSecret(A, { labels: { 'managed-by': 'hyperfleet', 'cluster-id': A } }),
        ),
      'the pull secret job may only write Secrets labelled managed-by=hyperfleet, adapter=pullsecret and cluster-id',
    ],
    [
      "lowering the generation stamp of a pull secret (a lagging execution undoing a newer one's write)",
      () =>
        asJob(
          'PATCH',
          `${secrets(`clusters-${B}`)}/${B}-pull-secret`,
          { metadata: { annotations: { 'hyperfleet.io/generation': '4' } } },
          MERGE_PATCH,
        ),
      "SecretGenerationAhead: the pull secret job may not lower a Secret's hyperfleet.io/generation (a newer generation wrote it)",
    ],
  ])('the fence refuses %s (403, the policy message)', async (_, attempt, message) => {
    const answer = await attempt();
    expect(answer.status).toBe(403);
    expect(answer.message).toMatch(
      new RegExp(
        `is forbidden: ${POLICY.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
      ),
    );
  });

  it('admission runs on dry runs too: a dry-run create in kube-system is refused the same way, and stores nothing', async () => {
    const answer = await asJob('POST', `${secrets('kube-system')}?dryRun=All`, pullSecret(A));
    expect(answer.status).toBe(403);
    expect(await admin.get(`${secrets('kube-system')}/${A}-pull-secret`)).toBeUndefined();
  });

  it('the administrator is not fenced (matchConditions match the job only)', async () => {
    expect((await admin.request('POST', secrets('kube-system'), pullSecret(A))).status).toBe(201);
    expect(
      (await admin.request('DELETE', `${secrets('kube-system')}/${A}-pull-secret`)).status,
    ).toBe(200);
  });
});
