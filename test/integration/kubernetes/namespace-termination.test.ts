import { KubeReader } from '../../../emulators/common/kube-admin';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import { coreApi, dockerConfig, failureOf, k8s } from '../../helpers/kubernetes';
import { request } from './kube-clients';

/**
 * A deleted namespace's end, as the registry, the namespace controller and the NamespaceLifecycle
 * admission plugin run it (emulators/kube-apiserver/namespace-termination.ts cites each), through
 * real @kubernetes/client-node calls. The controller is held so the Terminating window stays open
 * for as long as each test needs it, then released.
 */
const NS = 'clusters-ending';
const MERGE_PATCH = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const APPLY_PATCH = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply);

const secret = (name: string): k8s.V1Secret => ({
  metadata: { name, labels: { app: name } },
  type: 'kubernetes.io/dockerconfigjson',
  data: dockerConfig(),
});

/** NamespaceLifecycle's refusal, word for word (admission.go `Admit`, errors.NewForbidden). */
const terminatingRefusal = (resource: string, name: string) => ({
  code: 403,
  reason: 'Forbidden',
  message: `${resource} "${name}" is forbidden: unable to create new content in namespace ${NS} because it is being terminated`,
  details: {
    name,
    kind: resource,
    causes: [
      {
        reason: 'NamespaceTerminating',
        message: `namespace ${NS} is being terminated`,
        field: 'metadata.namespace',
      },
    ],
  },
});

/** A namespace DELETE, read raw: its answer is the namespace as the registry left it. */
async function deleteNamespace(emulator: KubeApiServerEmulator, name: string) {
  const answer = await request(emulator, 'DELETE', `/api/v1/namespaces/${name}`);
  return {
    status: answer.status,
    body: answer.body as {
      kind: string;
      metadata: { deletionTimestamp?: string; resourceVersion: string };
      status: { phase: string };
    },
  };
}

describe('namespace termination in the Kubernetes emulator (client-node)', () => {
  let emulator: KubeApiServerEmulator;
  let api: k8s.CoreV1Api;

  beforeEach(async () => {
    emulator = await startKubeApiServerEmulator({ namespaces: [NS] });
    api = coreApi(emulator);
  });
  afterEach(() => emulator.stop());

  it('keeps a deleted namespace Terminating while held; only new content is refused', async () => {
    await api.createNamespacedSecret({ namespace: NS, body: secret('kept') });
    await api.createNamespacedSecret({ namespace: NS, body: secret('removed') });
    const before = await api.readNamespace({ name: NS });
    emulator.namespaceController.hold(NS);

    // client-node types a namespace DELETE's answer as a Status; the body is the namespace.
    const deleted = await deleteNamespace(emulator, NS);
    expect(deleted).toMatchObject({
      status: 200,
      body: { kind: 'Namespace', status: { phase: 'Terminating' } },
    });
    const stamp = deleted.body.metadata.deletionTimestamp ?? '';
    expect(stamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Number(deleted.body.metadata.resourceVersion)).toBeGreaterThan(
      Number(before.metadata?.resourceVersion),
    );
    const read = await api.readNamespace({ name: NS });
    expect(read.status?.phase).toBe('Terminating');
    expect(read.metadata?.deletionTimestamp).toEqual(new Date(stamp));
    // A second DELETE answers the namespace as it is: the first one's timestamp stays.
    const again = await deleteNamespace(emulator, NS);
    expect(again.body.metadata.deletionTimestamp).toBe(stamp);
    expect(again.body.metadata.resourceVersion).toBe(read.metadata?.resourceVersion);

    // Creates are refused, whatever their form: POST, dry run, server-side apply.
    expect(
      await failureOf(api.createNamespacedSecret({ namespace: NS, body: secret('new') })),
    ).toEqual(terminatingRefusal('secrets', 'new'));
    expect(
      await failureOf(
        api.createNamespacedSecret({ namespace: NS, body: secret('new'), dryRun: 'All' }),
      ),
    ).toMatchObject(terminatingRefusal('secrets', 'new'));
    expect(
      await failureOf(
        api.patchNamespacedSecret(
          {
            namespace: NS,
            name: 'applied',
            fieldManager: 'test',
            body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'applied' } },
          },
          APPLY_PATCH,
        ),
      ),
    ).toMatchObject(terminatingRefusal('secrets', 'applied'));
    // The plugin runs before validation: an invalid Secret is refused for the namespace, not 422.
    expect(
      await failureOf(
        api.createNamespacedSecret({
          namespace: NS,
          body: { metadata: { name: 'bad' }, data: { k: 'not base64!' } },
        }),
      ),
    ).toMatchObject({ code: 403, details: { causes: [{ reason: 'NamespaceTerminating' }] } });

    // What is already there can still be changed and deleted.
    const patched = await api.patchNamespacedSecret(
      { namespace: NS, name: 'kept', body: { metadata: { labels: { touched: 'yes' } } } },
      MERGE_PATCH,
    );
    expect(patched.metadata?.labels).toMatchObject({ touched: 'yes' });
    const replaced = await api.replaceNamespacedSecret({
      namespace: NS,
      name: 'kept',
      body: { ...patched, stringData: { extra: 'v' } },
    });
    expect(Object.keys(replaced.data ?? {})).toContain('extra');
    await api.deleteNamespacedSecret({ namespace: NS, name: 'removed' });
    expect(
      await failureOf(api.readNamespacedSecret({ namespace: NS, name: 'removed' })),
    ).toMatchObject({ code: 404 });
    expect(
      (await api.listNamespacedSecret({ namespace: NS })).items.map((s) => s.metadata?.name),
    ).toEqual(['kept']);
    // The name stays taken until the namespace is gone.
    expect(
      await failureOf(api.createNamespace({ body: { metadata: { name: NS } } })),
    ).toMatchObject({
      code: 409,
      reason: 'AlreadyExists',
      message: `object is being deleted: namespaces "${NS}" already exists`,
    });

    emulator.namespaceController.release(NS);
    expect(await failureOf(api.readNamespace({ name: NS }))).toMatchObject({ code: 404 });
    expect(
      await failureOf(api.readNamespacedSecret({ namespace: NS, name: 'kept' })),
    ).toMatchObject({ code: 404 });
    expect((await api.listSecretForAllNamespaces()).items).toEqual([]);
    // The name is free again: a new namespace of that name starts Active and empty.
    const recreated = await api.createNamespace({ body: { metadata: { name: NS } } });
    expect(recreated.status?.phase).toBe('Active');
    expect(recreated.metadata?.deletionTimestamp).toBeUndefined();
  });

  it('refuses creates of /apis kinds there too, and removes them with the namespace', async () => {
    const role = (name: string) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    });
    const roles = `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`;
    expect((await request(emulator, 'POST', roles, { body: role('before') })).status).toBe(201);
    emulator.namespaceController.hold(NS);
    await api.deleteNamespace({ name: NS });

    const refused = await request(emulator, 'POST', roles, { body: role('after') });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      reason: 'Forbidden',
      message: `roles.rbac.authorization.k8s.io "after" is forbidden: unable to create new content in namespace ${NS} because it is being terminated`,
      details: {
        name: 'after',
        group: 'rbac.authorization.k8s.io',
        kind: 'roles',
        causes: [{ reason: 'NamespaceTerminating' }],
      },
    });
    expect((await request(emulator, 'GET', `${roles}/before`)).status).toBe(200);

    emulator.namespaceController.release(NS);
    expect((await request(emulator, 'GET', `${roles}/before`)).status).toBe(404);
  });

  it('an update never removes the deletion timestamp, and cannot set one', async () => {
    const fresh = await api.createNamespace({
      body: { metadata: { name: 'stamped', deletionTimestamp: new Date(0) } },
    });
    expect(fresh.metadata?.deletionTimestamp).toBeUndefined();
    emulator.namespaceController.hold(NS);
    await api.deleteNamespace({ name: NS });
    const deleted = await api.readNamespace({ name: NS });
    const { deletionTimestamp: _dropped, ...withoutTimestamp } = deleted.metadata ?? {};
    const updated = await api.replaceNamespace({
      name: NS,
      body: { ...deleted, metadata: { ...withoutTimestamp, labels: { note: 'still-here' } } },
    });
    expect(updated.metadata?.labels).toMatchObject({ note: 'still-here' });
    expect(updated.metadata?.deletionTimestamp).toEqual(deleted.metadata?.deletionTimestamp);
    expect(updated.status?.phase).toBe('Terminating');
  });

  it('without a hold the namespace goes at once, its contents first; the system namespaces never go', async () => {
    await api.createNamespacedSecret({ namespace: NS, body: secret('inside') });
    const deleted = await deleteNamespace(emulator, NS);
    expect(deleted.body.status.phase).toBe('Terminating');
    expect(await failureOf(api.readNamespace({ name: NS }))).toMatchObject({ code: 404 });
    expect((await api.listSecretForAllNamespaces()).items).toEqual([]);

    for (const name of ['default', 'kube-system', 'kube-public'])
      expect(await failureOf(api.deleteNamespace({ name }))).toMatchObject({
        code: 403,
        reason: 'Forbidden',
        message: `namespaces "${name}" is forbidden: this namespace may not be deleted`,
      });
    expect((await api.readNamespace({ name: 'default' })).status?.phase).toBe('Active');
  });

  it('holds and releases through the admin API, for tests in other processes', async () => {
    const admin = new KubeReader(emulator.kubeconfigPath);
    const held = await admin.admin('POST', `/namespaces/${NS}/hold`);
    expect(held).toMatchObject({ status: 200 });
    expect(JSON.parse(held.body)).toEqual({ held: [NS] });
    await api.deleteNamespace({ name: NS });
    expect((await api.readNamespace({ name: NS })).status?.phase).toBe('Terminating');

    const released = await admin.admin('DELETE', `/namespaces/${NS}/hold`);
    expect(JSON.parse(released.body)).toEqual({ held: [] });
    expect(await failureOf(api.readNamespace({ name: NS }))).toMatchObject({ code: 404 });
  });
});
