// The Kubernetes emulator as a GKE management cluster sees the job: Google access tokens from the
// metadata server authenticated as GKE does (401 unknown/expired; the email only with the
// userinfo.email scope, else the numeric unique id), and the job's rights from Terraform's own
// template applied with kubectl, evaluated by RBAC (verbs, resourceNames, User and Group subjects,
// RoleBindings per namespace), as `kubectl auth can-i --as` asks it.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { applyManifest } from '../../../emulators/pullsecret/stack/cluster-rbac';
import { JOB_SCOPES, metadataServerToken } from '../../helpers/metadata-token';
import { startGoogleCluster, type GoogleCluster } from '../../helpers/google-cluster';
import { itWithTool } from '../../helpers/required-tools';

const JOB = 'pullsecret-job@demo-platform.iam.gserviceaccount.com';
const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';
const run = promisify(execFile);

describe('Google identities and RBAC from the Terraform template (Kubernetes emulator)', () => {
  let cluster: GoogleCluster;
  let metadata: GoogleCluster['metadata'];
  let kube: GoogleCluster['kube'];
  let admin: GoogleCluster['admin'];
  let dir: string;

  beforeAll(async () => {
    cluster = await startGoogleCluster({
      serviceAccount: JOB,
      namespaces: ['clusters-a', 'clusters-b', 'kube-system'],
    });
    ({ metadata, kube, admin } = cluster);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'google-rbac-'));
  });
  afterAll(async () => {
    await cluster.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The pull secret of cluster `cluster`, as the job writes it (the fence admits nothing else). */
  const secret = (name: string, cluster = 'a') => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      labels: { 'managed-by': 'hyperfleet', adapter: 'pullsecret', 'cluster-id': cluster },
    },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from('{"auths":{}}').toString('base64') },
  });
  const message = (body: string) => (JSON.parse(body) as { message: string }).message;

  it('the rendered template was applied: the ClusterRole, its cluster-wide binding and the fence exist', async () => {
    const role = await admin.get(
      '/apis/rbac.authorization.k8s.io/v1/clusterroles/hyperfleet-pullsecret-writer',
    );
    expect(role?.rules).toEqual([
      { apiGroups: [''], resources: ['secrets'], verbs: ['create', 'patch', 'delete'] },
    ]);
    const binding = await admin.get(
      '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/hyperfleet-pullsecret-writer',
    );
    expect(binding?.subjects).toEqual([
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: JOB },
    ]);
    expect(
      await admin.get(
        '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/hyperfleet-pullsecret-fence',
      ),
    ).toBeDefined();
  });

  it('a token with userinfo.email is the service account email: the template grants it create, patch and delete, never get', async () => {
    const token = await metadataServerToken(metadata.endpoint);
    const secrets = '/api/v1/namespaces/clusters-a/secrets';
    expect((await admin.request('POST', secrets, secret('a-pull-secret'), token)).status).toBe(201);
    expect((await admin.request('GET', `${secrets}/a-pull-secret`, undefined, token)).status).toBe(
      403,
    );
    expect(
      (await admin.request('DELETE', `${secrets}/a-pull-secret`, undefined, token)).status,
    ).toBe(200);
    expect(kube.requests.list().filter((r) => r.identity === JOB).length).toBeGreaterThanOrEqual(3);
  });

  it('verbs the template does not grant are refused with the real wording (list, update, namespaces)', async () => {
    const token = await metadataServerToken(metadata.endpoint);
    const list = await admin.request(
      'GET',
      '/api/v1/namespaces/clusters-a/secrets',
      undefined,
      token,
    );
    expect(list.status).toBe(403);
    expect(message(list.body)).toBe(
      `secrets is forbidden: User "${JOB}" cannot list resource "secrets" in API group "" in the namespace "clusters-a"`,
    );
    const namespace = await admin.request(
      'POST',
      '/api/v1/namespaces',
      { metadata: { name: 'x' } },
      token,
    );
    expect(namespace.status).toBe(403);
    expect(message(namespace.body)).toContain(`User "${JOB}" cannot create resource "namespaces"`);
  });

  it('a token without userinfo.email is the numeric unique id, which no binding names: 403', async () => {
    const token = await metadataServerToken(metadata.endpoint, [CLOUD_PLATFORM]);
    const answer = await admin.request(
      'POST',
      '/api/v1/namespaces/clusters-a/secrets',
      secret('n'),
      token,
    );
    expect(answer.status).toBe(403);
    expect(message(answer.body)).toMatch(
      /^secrets is forbidden: User "\d{21}" cannot create resource "secrets"/,
    );
  });

  it('unknown and expired tokens are 401', async () => {
    const unknown = await admin.request(
      'GET',
      '/api/v1/namespaces/clusters-a/secrets/x',
      undefined,
      'ya29.not-issued',
    );
    expect(unknown.status).toBe(401);
    const token = await metadataServerToken(metadata.endpoint, JOB_SCOPES);
    const expire = await fetch(`${metadata.endpoint}/_emulator/tokens/expire`, { method: 'POST' });
    expect(expire.status).toBe(200);
    const expired = await admin.request(
      'GET',
      '/api/v1/namespaces/clusters-a/secrets/x',
      undefined,
      token,
    );
    expect(expired.status).toBe(401);
  });

  it('discovery is open to any authenticated user, as the bootstrap system:discovery binding makes it', async () => {
    const token = await metadataServerToken(metadata.endpoint, [CLOUD_PLATFORM]);
    expect((await admin.request('GET', '/api', undefined, token)).status).toBe(200);
    expect((await admin.request('GET', '/apis', undefined, token)).status).toBe(200);
  });

  it('RoleBindings grant in their namespace only; resourceNames narrow get but never allow create; Group subjects match', async () => {
    await applyManifest(
      kube.kubeconfigPath,
      [
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: Role',
        'metadata: {name: named-reader, namespace: clusters-b}',
        'rules: [{apiGroups: [""], resources: [secrets], verbs: [get, create], resourceNames: [only-this]}]',
        '---',
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: RoleBinding',
        'metadata: {name: authenticated-named-reader, namespace: clusters-b}',
        'roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: named-reader}',
        'subjects: [{kind: Group, apiGroup: rbac.authorization.k8s.io, name: "system:authenticated"}]',
      ].join('\n'),
    );
    const token = await metadataServerToken(metadata.endpoint, [CLOUD_PLATFORM]);
    const get = (namespace: string, name: string) =>
      admin.request('GET', `/api/v1/namespaces/${namespace}/secrets/${name}`, undefined, token);
    expect((await get('clusters-b', 'only-this')).status).toBe(404); // allowed, not there
    expect((await get('clusters-b', 'other')).status).toBe(403);
    expect((await get('clusters-a', 'only-this')).status).toBe(403);
    const create = await admin.request(
      'POST',
      '/api/v1/namespaces/clusters-b/secrets',
      secret('only-this'),
      token,
    );
    expect(create.status).toBe(403);
  });

  it('a binding cannot change its roleRef (422), as the real server refuses it', async () => {
    const path =
      '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/hyperfleet-pullsecret-writer';
    const binding = (await admin.get(path))!;
    const answer = await admin.request('PUT', path, {
      ...binding,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'other' },
    });
    expect(answer.status).toBe(422);
    expect(message(answer.body)).toContain('cannot change roleRef');
  });

  itWithTool(
    'kubectl',
    'kubectl auth can-i --as the job answers from the same RBAC (impersonation + SelfSubjectAccessReview)',
    async (kubectl) => {
      const canI = async (...args: string[]) => {
        try {
          const { stdout } = await run(
            kubectl,
            ['--kubeconfig', kube.kubeconfigPath, 'auth', 'can-i', ...args, `--as=${JOB}`],
            {
              env: { PATH: process.env.PATH, HOME: dir },
            },
          );
          return stdout.trim();
        } catch (error) {
          return String((error as { stdout?: string }).stdout ?? error).trim();
        }
      };
      expect(await canI('create', 'secrets', '-n', 'clusters-a')).toBe('yes');
      expect(await canI('delete', 'secrets', '-n', 'kube-system')).toBe('yes');
      expect(await canI('list', 'secrets', '-n', 'clusters-a')).toBe('no');
      expect(await canI('create', 'namespaces')).toBe('no');
    },
  );
});
