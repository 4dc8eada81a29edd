import { execFile } from 'node:child_process';
import os from 'node:os';
import { promisify } from 'node:util';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import { coreApi, dockerConfig, failureOf, k8s } from '../../helpers/kubernetes';
import { itWithTool } from '../../helpers/required-tools';

const NS = 'clusters-cls-1';
const secret = (name: string, extra: Partial<k8s.V1Secret> = {}): k8s.V1Secret => ({
  metadata: { name, labels: { 'managed-by': 'hyperfleet', app: name } },
  type: 'kubernetes.io/dockerconfigjson',
  data: dockerConfig(),
  ...extra,
});

describe('Kubernetes API emulator through @kubernetes/client-node', () => {
  let emulator: KubeApiServerEmulator;
  let api: k8s.CoreV1Api;

  beforeAll(async () => {
    emulator = await startKubeApiServerEmulator({
      namespaces: [NS],
      rbac: {
        'reader-token-123456': {
          user: 'reader',
          rules: [{ resources: ['secrets'], verbs: ['get', 'list'], namespaces: [NS] }],
        },
      },
    });
    api = coreApi(emulator);
  });
  afterAll(() => emulator.stop());

  it('serves discovery and namespaces (the system namespaces exist, as in every cluster)', async () => {
    await api.createNamespace({ body: { metadata: { name: 'extra-ns' } } });
    const list = await api.listNamespace();
    expect(list.items.map((n) => n.metadata?.name).sort()).toEqual(
      [NS, 'default', 'extra-ns', 'kube-node-lease', 'kube-public', 'kube-system'].sort(),
    );
    expect((await api.readNamespace({ name: NS })).status?.phase).toBe('Active');
    expect(
      await failureOf(api.createNamespace({ body: { metadata: { name: 'extra-ns' } } })),
    ).toMatchObject({ code: 409, reason: 'AlreadyExists' });
    expect(
      await failureOf(api.createNamespace({ body: { metadata: { name: 'Bad_Name' } } })),
    ).toMatchObject({ code: 422, reason: 'Invalid' });
    await api.deleteNamespace({ name: 'extra-ns' });
    expect(await failureOf(api.readNamespace({ name: 'extra-ns' }))).toMatchObject({
      code: 404,
      reason: 'NotFound',
    });
  });

  it('creates, reads, lists by label and deletes secrets with resourceVersion, uid and creationTimestamp', async () => {
    const created = await api.createNamespacedSecret({ namespace: NS, body: secret('one') });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);
    await api.createNamespacedSecret({
      namespace: NS,
      body: { metadata: { name: 'other', labels: { app: 'x' } }, stringData: { k: 'v' } },
    });
    const read = await api.readNamespacedSecret({ namespace: NS, name: 'other' });
    expect(read.type).toBe('Opaque');
    expect(Buffer.from(read.data?.k ?? '', 'base64').toString()).toBe('v');
    const owned = await api.listNamespacedSecret({
      namespace: NS,
      labelSelector: 'managed-by=hyperfleet',
    });
    expect(owned.items.map((s) => s.metadata?.name)).toEqual(['one']);
    expect(
      await failureOf(api.createNamespacedSecret({ namespace: NS, body: secret('one') })),
    ).toMatchObject({
      code: 409,
      reason: 'AlreadyExists',
      message: 'secrets "one" already exists',
    });
    await api.deleteNamespacedSecret({ namespace: NS, name: 'other' });
    expect(
      await failureOf(api.readNamespacedSecret({ namespace: NS, name: 'other' })),
    ).toMatchObject({ code: 404, message: 'secrets "other" not found' });
  });

  it('answers 404 for a missing namespace and 422 for an invalid dockerconfigjson, without echoing data', async () => {
    const missing = await failureOf(
      api.createNamespacedSecret({ namespace: 'nowhere', body: secret('s') }),
    );
    expect(missing).toMatchObject({
      code: 404,
      reason: 'NotFound',
      message: 'namespaces "nowhere" not found',
    });
    const noKey = await failureOf(
      api.createNamespacedSecret({
        namespace: NS,
        body: secret('bad', { data: { other: 'eA==' } }),
      }),
    );
    expect(noKey).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(noKey.message).toContain('data[.dockerconfigjson]: Required value');
    const notJson = await failureOf(
      api.createNamespacedSecret({
        namespace: NS,
        body: secret('bad', { data: dockerConfig('{secret-not-json') }),
      }),
    );
    expect(notJson.code).toBe(422);
    expect(notJson.message).toContain('<secret contents redacted>');
    expect(notJson.message).not.toContain('secret-not-json');
  });

  it('rejects a replace with a stale resourceVersion (409) and accepts a current one', async () => {
    const created = await api.createNamespacedSecret({ namespace: NS, body: secret('rv') });
    const updated = await api.replaceNamespacedSecret({
      namespace: NS,
      name: 'rv',
      body: { ...secret('rv'), metadata: { ...created.metadata, labels: { v: '2' } } },
    });
    expect(Number(updated.metadata?.resourceVersion)).toBeGreaterThan(
      Number(created.metadata?.resourceVersion),
    );
    const stale = await failureOf(
      api.replaceNamespacedSecret({
        namespace: NS,
        name: 'rv',
        body: {
          ...secret('rv'),
          metadata: { name: 'rv', resourceVersion: created.metadata?.resourceVersion },
        },
      }),
    );
    expect(stale).toMatchObject({ code: 409, reason: 'Conflict' });
    const typeChange = await failureOf(
      api.replaceNamespacedSecret({
        namespace: NS,
        name: 'rv',
        body: { metadata: { name: 'rv' }, type: 'Opaque', data: {} },
      }),
    );
    expect(typeChange).toMatchObject({ code: 422 });
    expect(typeChange.message).toContain('field is immutable');
  });

  it('patches with JSON merge, strategic merge and server-side apply (fieldManager, conflicts, force)', async () => {
    await api.createNamespacedSecret({ namespace: NS, body: secret('patched') });
    const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
    const merged = await api.patchNamespacedSecret(
      { namespace: NS, name: 'patched', body: { metadata: { labels: { app: null, extra: 'y' } } } },
      merge,
    );
    expect(merged.metadata?.labels).toEqual({ 'managed-by': 'hyperfleet', extra: 'y' });
    const smp = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch);
    const strategic = await api.patchNamespacedSecret(
      { namespace: NS, name: 'patched', body: { metadata: { annotations: { note: 'n' } } } },
      smp,
    );
    expect(strategic.metadata?.annotations).toEqual({ note: 'n' });

    const apply = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply);
    const body = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'patched', labels: { extra: 'z' } },
    };
    const conflict = await failureOf(
      api.patchNamespacedSecret(
        { namespace: NS, name: 'patched', body, fieldManager: 'job' },
        apply,
      ),
    );
    expect(conflict.code).toBe(409);
    expect(conflict.message).toMatch(
      /Apply failed with 1 conflict: conflict with ".+": \.metadata\.labels\.extra/,
    );
    const forced = await api.patchNamespacedSecret(
      { namespace: NS, name: 'patched', body, fieldManager: 'job', force: true },
      apply,
    );
    expect(forced.metadata?.labels?.extra).toBe('z');
    expect(forced.metadata?.managedFields?.map((f) => f.manager)).toContain('job');
    const noManager = await failureOf(
      api.patchNamespacedSecret({ namespace: NS, name: 'patched', body }, apply),
    );
    expect(noManager).toMatchObject({ code: 400 });
    const createdByApply = await api.patchNamespacedSecret(
      {
        namespace: NS,
        name: 'applied-new',
        body: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'applied-new' },
          type: 'kubernetes.io/dockerconfigjson',
          data: dockerConfig(),
        },
        fieldManager: 'job',
      },
      apply,
    );
    expect(createdByApply.metadata?.uid).toBeTruthy();
  });

  it('authenticates bearer tokens (401) and authorizes verbs per namespace (403)', async () => {
    const anonymous = coreApi(emulator, 'not-a-known-token');
    expect(await failureOf(anonymous.listNamespacedSecret({ namespace: NS }))).toMatchObject({
      code: 401,
    });
    const raw = emulator.requests.list().filter((r) => r.outcome === 401);
    expect(raw.length).toBeGreaterThan(0);
    const reader = coreApi(emulator, 'reader-token-123456');
    await expect(reader.listNamespacedSecret({ namespace: NS })).resolves.toBeTruthy();
    const denied = await failureOf(
      reader.createNamespacedSecret({ namespace: NS, body: secret('x') }),
    );
    expect(denied).toMatchObject({ code: 403, reason: 'Forbidden' });
    expect(denied.message).toBe(
      `secrets is forbidden: User "reader" cannot create resource "secrets" in API group "" in the namespace "${NS}"`,
    );
    expect(await failureOf(reader.listNamespacedSecret({ namespace: 'default' }))).toMatchObject({
      code: 403,
    });
    expect(emulator.requests.list().some((r) => r.identity === 'reader' && r.outcome === 403)).toBe(
      true,
    );
  });

  it('injects faults by method and path', async () => {
    emulator.faults.add({
      match: `GET /api/v1/namespaces/${NS}/secrets/one`,
      count: 2,
      status: 503,
    });
    expect(await failureOf(api.readNamespacedSecret({ namespace: NS, name: 'one' }))).toMatchObject(
      { code: 503, reason: 'ServiceUnavailable' },
    );
    expect(await failureOf(api.readNamespacedSecret({ namespace: NS, name: 'one' }))).toMatchObject(
      { code: 503 },
    );
    await expect(api.readNamespacedSecret({ namespace: NS, name: 'one' })).resolves.toBeTruthy();
  });

  itWithTool(
    'kubectl',
    'works with kubectl: get namespaces and secrets as JSON',
    async (kubectl) => {
      const run = promisify(execFile);
      const env = { ...process.env, KUBECONFIG: emulator.kubeconfigPath, HOME: os.tmpdir() };
      const { stdout } = await run(kubectl, ['get', 'secret', '-n', NS, 'one', '-o', 'json'], {
        env,
      });
      const parsed = JSON.parse(stdout) as k8s.V1Secret;
      expect(parsed.type).toBe('kubernetes.io/dockerconfigjson');
      expect(parsed.metadata?.labels?.['managed-by']).toBe('hyperfleet');
      const namespaces = await run(kubectl, ['get', 'namespaces', '-o', 'name'], { env });
      expect(namespaces.stdout).toContain(`namespace/${NS}`);
    },
  );
});
