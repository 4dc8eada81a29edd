import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import { writeKubeconfig } from '../../../emulators/kube-apiserver/kubeconfig';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { EXIT_CODES } from '../../../shared/job-result';
import { runJob, samplePullSecret } from '../../helpers/job';
import { coreApi, dockerConfig } from '../../helpers/kubernetes';

const NS = 'clusters-cls-123';
const NAME = 'cls-123-pull-secret';

describe('pull secret job, Kubernetes phase (CLI process against both emulators)', () => {
  let sm: SecretManagerEmulator;
  let kube: KubeApiServerEmulator;
  let env: Record<string, string>;

  beforeEach(async () => {
    sm = await startSecretManagerEmulator();
    kube = await startKubeApiServerEmulator({
      namespaces: [NS],
      rbac: {
        'viewer-token-abcdef': {
          user: 'system:serviceaccount:hyperfleet:viewer',
          rules: [{ resources: ['secrets'], verbs: ['get'], namespaces: [NS] }],
        },
      },
    });
    env = {
      SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
      KUBECONFIG: kube.kubeconfigPath,
      GCP_PROJECT_ID: 'demo-project',
      CLUSTER_ID: 'cls-123',
      CLUSTER_NAME: 'my-cluster',
      MANAGEMENT_NAMESPACE: NS,
      PULL_SECRET_DATA: samplePullSecret(),
    };
  });
  afterEach(async () => {
    await sm.stop();
    await kube.stop();
  });

  const kubeCalls = () => kube.requests.list().map((r) => `${r.method} ${r.outcome}`);

  it('stores in Secret Manager then creates the dockerconfigjson Secret with labels and annotations', async () => {
    const run = await runJob(env);
    expect(run.code).toBe(EXIT_CODES.success);
    expect(run.result.phases).toEqual(['secret-manager', 'kubernetes']);
    expect(run.result.kubernetes).toMatchObject({
      namespace: NS,
      name: NAME,
      outcome: 'created',
      resource_version: expect.any(String),
    });
    expect(kubeCalls()).toEqual(['PATCH 404', 'POST 201']);
    const secret = await coreApi(kube).readNamespacedSecret({ namespace: NS, name: NAME });
    expect(secret.type).toBe('kubernetes.io/dockerconfigjson');
    expect(Buffer.from(secret.data?.['.dockerconfigjson'] ?? '', 'base64').toString()).toBe(
      env.PULL_SECRET_DATA,
    );
    expect(secret.metadata?.labels).toEqual({
      'managed-by': 'hyperfleet',
      adapter: 'pullsecret',
      'cluster-id': 'cls-123',
      'cluster-name': 'my-cluster',
      'hyperfleet-version': 'v1',
    });
    expect(secret.metadata?.annotations).toMatchObject({
      'hyperfleet.io/gcp-secret-path':
        'projects/demo-project/secrets/hyperfleet-cls-123-pull-secret/versions/current',
      'hyperfleet.io/gcp-secret-version': '1',
      'hyperfleet.io/created-by': 'pullsecret-adapter',
      'hyperfleet.io/created-at': expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('makes no write on an unchanged run and updates when the data changes', async () => {
    const first = await runJob(env);
    const rv = first.result.kubernetes?.resource_version;
    const createdAt = (await coreApi(kube).readNamespacedSecret({ namespace: NS, name: NAME }))
      .metadata?.annotations?.['hyperfleet.io/created-at'];
    kube.requests.clear();
    const unchanged = await runJob(env);
    expect(unchanged.result.kubernetes).toMatchObject({
      outcome: 'unchanged',
      resource_version: rv,
    });
    expect(kubeCalls()).toEqual(['PATCH 200']);

    kube.requests.clear();
    const changed = await runJob({
      ...env,
      PULL_SECRET_DATA: samplePullSecret('rotated', 'rotated-password'),
    });
    expect(changed.result.kubernetes?.outcome).toBe('updated');
    expect(kubeCalls()).toEqual(['PATCH 200', 'PATCH 200']);
    const secret = await coreApi(kube).readNamespacedSecret({ namespace: NS, name: NAME });
    expect(secret.metadata?.annotations).toMatchObject({
      'hyperfleet.io/gcp-secret-path': expect.stringMatching(/\/versions\/current$/),
      'hyperfleet.io/gcp-secret-version': '2',
    });
    expect(secret.metadata?.annotations?.['hyperfleet.io/created-at']).toBe(createdAt);
  });

  it('patches once a Secret whose bytes are right but whose annotations name a numbered version (written before current)', async () => {
    await runJob(env);
    const api = coreApi(kube);
    const k8s = await import('@kubernetes/client-node');
    await api.patchNamespacedSecret(
      {
        namespace: NS,
        name: NAME,
        body: {
          metadata: {
            annotations: {
              'hyperfleet.io/gcp-secret-path':
                'projects/demo-project/secrets/hyperfleet-cls-123-pull-secret/versions/1',
              'hyperfleet.io/gcp-secret-version': null,
            },
          },
        },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    kube.requests.clear();
    const upgraded = await runJob(env);
    expect(upgraded.result.kubernetes?.outcome).toBe('updated');
    expect(kubeCalls()).toEqual(['PATCH 200', 'PATCH 200']);
    const secret = await api.readNamespacedSecret({ namespace: NS, name: NAME });
    expect(secret.metadata?.annotations).toMatchObject({
      'hyperfleet.io/gcp-secret-path': expect.stringMatching(/\/versions\/current$/),
      'hyperfleet.io/gcp-secret-version': '1',
    });
    kube.requests.clear();
    expect((await runJob(env)).result.kubernetes?.outcome).toBe('unchanged');
    expect(kubeCalls()).toEqual(['PATCH 200']);
  });

  it('an update keeps what another actor added: owner references, finalizers, labels, annotations, data keys', async () => {
    await runJob(env);
    const api = coreApi(kube);
    const k8s = await import('@kubernetes/client-node');
    // Another controller decorates our Secret (as HyperShift or a backup tool would).
    const decorated = await api.patchNamespacedSecret(
      {
        namespace: NS,
        name: NAME,
        fieldManager: 'hypershift-operator',
        body: {
          metadata: {
            ownerReferences: [
              {
                apiVersion: 'hypershift.openshift.io/v1beta1',
                kind: 'HostedCluster',
                name: 'my-cluster',
                uid: '2f6c1d3e-0000-4000-8000-000000000001',
              },
            ],
            finalizers: ['hypershift.openshift.io/pull-secret'],
            labels: { 'hypershift.openshift.io/owned': 'true' },
            annotations: { 'backup.example.com/last': '2026-11-23T00:00:00Z' },
          },
          data: { 'extra.json': Buffer.from('{}').toString('base64') },
        },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );

    kube.requests.clear();
    const rotated = samplePullSecret('rotated', 'rotated-password');
    const run = await runJob({ ...env, PULL_SECRET_DATA: rotated });
    expect(run.result.kubernetes?.outcome).toBe('updated');
    expect(kubeCalls()).toEqual(['PATCH 200', 'PATCH 200']);

    const secret = await api.readNamespacedSecret({ namespace: NS, name: NAME });
    expect(Buffer.from(secret.data?.['.dockerconfigjson'] ?? '', 'base64').toString()).toBe(
      rotated,
    );
    expect(secret.data?.['extra.json']).toBe(Buffer.from('{}').toString('base64'));
    expect(secret.metadata?.ownerReferences).toEqual(decorated.metadata?.ownerReferences);
    expect(secret.metadata?.finalizers).toEqual(['hypershift.openshift.io/pull-secret']);
    expect(secret.metadata?.labels).toMatchObject({
      'hypershift.openshift.io/owned': 'true',
      'managed-by': 'hyperfleet',
    });
    expect(secret.metadata?.annotations).toMatchObject({
      'backup.example.com/last': '2026-11-23T00:00:00Z',
      'hyperfleet.io/gcp-secret-version': '2',
    });
    // The job's write is attributed to its field manager; the decorator keeps its own fields.
    const managers = (secret.metadata?.managedFields ?? []).map((m) => m.manager);
    expect(managers).toEqual(expect.arrayContaining(['pullsecret-job', 'hypershift-operator']));
  });

  it('a patch carrying a stale resourceVersion is a 409 Conflict (the emulator enforces it)', async () => {
    await runJob(env);
    const api = coreApi(kube);
    const k8s = await import('@kubernetes/client-node');
    const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
    const current = await api.readNamespacedSecret({ namespace: NS, name: NAME });
    await api.patchNamespacedSecret(
      { namespace: NS, name: NAME, body: { metadata: { labels: { touched: 'yes' } } } },
      merge,
    );
    await expect(
      api.patchNamespacedSecret(
        {
          namespace: NS,
          name: NAME,
          body: {
            metadata: {
              resourceVersion: current.metadata?.resourceVersion,
              labels: { late: 'yes' },
            },
          },
        },
        merge,
      ),
    ).rejects.toMatchObject({ code: 409 });
  });

  it('refuses to overwrite a Secret it does not own', async () => {
    await coreApi(kube).createNamespacedSecret({
      namespace: NS,
      body: {
        metadata: { name: NAME },
        type: 'kubernetes.io/dockerconfigjson',
        data: dockerConfig(),
      },
    });
    kube.requests.clear();
    const run = await runJob(env);
    expect(run.code).toBe(EXIT_CODES.permanent);
    expect(run.result).toMatchObject({
      reason: 'SecretOwnershipConflict',
      phases: ['secret-manager', 'kubernetes'],
    });
    expect(run.result.message).toContain(`${NS}/${NAME}`);
    expect(kubeCalls()).toEqual(['PATCH 422']);
  });

  it('waits for a namespace created after two failures, then succeeds', async () => {
    // Another cluster, whose namespace clusters-{id} placement creates late.
    const late = 'clusters-late';
    const waiting = runJob({
      ...env,
      CLUSTER_ID: 'late',
      MANAGEMENT_NAMESPACE: late,
      KUBERNETES_NAMESPACE_WAIT: '30s',
    });
    while (
      kube.requests.list().filter((r) => r.method === 'POST' && r.outcome === 404).length < 2
    ) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await coreApi(kube).createNamespace({ body: { metadata: { name: late } } });
    const run = await waiting;
    expect(run.code).toBe(EXIT_CODES.success);
    expect(run.result.kubernetes).toMatchObject({ namespace: late, outcome: 'created' });
  });

  it('fails with NamespaceNotFound naming the namespace after the bounded wait', async () => {
    const run = await runJob({
      ...env,
      CLUSTER_ID: 'never',
      MANAGEMENT_NAMESPACE: 'clusters-never',
      KUBERNETES_NAMESPACE_WAIT: '300ms',
    });
    expect(run.code).toBe(EXIT_CODES.transient);
    expect(run.result.reason).toBe('NamespaceNotFound');
    expect(run.result.message).toContain('"clusters-never"');
  });

  it('reports 403 as permanent, naming the identity, the verb and the namespace', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kc-'));
    const viewer = path.join(dir, 'kubeconfig');
    writeKubeconfig(viewer, kube.endpoint, kube.caPem, 'viewer-token-abcdef', 'viewer');
    const run = await runJob({ ...env, KUBECONFIG: viewer });
    expect(run.code).toBe(EXIT_CODES.permanent);
    expect(run.result.reason).toBe('PermissionDenied');
    expect(run.result.message).toContain(
      // Its first call is the read, a dry-run patch (the job has no get).
      'User "system:serviceaccount:hyperfleet:viewer" cannot patch resource "secrets"',
    );
    expect(run.result.message).toContain(`namespace "${NS}"`);
    fs.rmSync(dir, { recursive: true });
  });

  it('reports 401 as permanent', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kc-'));
    const stranger = path.join(dir, 'kubeconfig');
    writeKubeconfig(stranger, kube.endpoint, kube.caPem, 'unknown-token-000000');
    const run = await runJob({ ...env, KUBECONFIG: stranger });
    expect(run.code).toBe(EXIT_CODES.permanent);
    expect(run.result.reason).toBe('Unauthenticated');
    fs.rmSync(dir, { recursive: true });
  });

  it('resolves a 409 on update by reading again, and retries 503s', async () => {
    await runJob(env);
    // Rules are consumed in order: the read (a dry-run test patch) fails twice with 503, passes,
    // then the update answers 409 once; the job reads again and updates.
    const patch = `PATCH /api/v1/namespaces/${NS}/secrets/${NAME}`;
    kube.faults.add({ match: patch, count: 2, status: 503 });
    kube.faults.add({ match: patch, count: 1, delayMs: 1 });
    kube.faults.add({ match: patch, status: 409 });
    kube.requests.clear();
    const run = await runJob({
      ...env,
      PULL_SECRET_DATA: samplePullSecret('after', 'conflict-pass'),
    });
    expect(run.code).toBe(EXIT_CODES.success);
    expect(run.result.kubernetes?.outcome).toBe('updated');
    expect(kubeCalls()).toEqual([
      'PATCH 503',
      'PATCH 503',
      'PATCH 200',
      'PATCH 409',
      'PATCH 200',
      'PATCH 200',
    ]);
  });

  it('SKIP_KUBERNETES=true runs the Secret Manager phase alone', async () => {
    const run = await runJob({ ...env, SKIP_KUBERNETES: 'true' });
    expect(run.result.phases).toEqual(['secret-manager']);
    expect(run.result.kubernetes).toBeUndefined();
    expect(kube.requests.list()).toEqual([]);
  });

  it('refuses a push target without a way to reach the cluster', async () => {
    const run = await runJob({ ...env, KUBECONFIG: undefined });
    expect(run.code).toBe(EXIT_CODES.configuration);
    expect(run.result.message).toContain(
      'MANAGEMENT_CLUSTERS: (or MANAGEMENT_CLUSTERS_FILE, or the single-cluster KUBECONFIG or MANAGEMENT_CLUSTER_ENDPOINT) is required',
    );
  });
});
