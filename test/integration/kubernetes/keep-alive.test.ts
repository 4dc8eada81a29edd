import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCoreV1Api } from '../../../functions/pull-secret-job/kubernetes/kubernetes-access';
import { CLUSTER_ADMIN_RULES } from '../../../emulators/kube-apiserver/rbac';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import { ConfigError } from '../../../shared/errors';

describe('the job reaches a management cluster over one keep-alive connection', () => {
  let kube: KubeApiServerEmulator;
  const token = 'ya29.keep-alive-token-aaaaaa';

  beforeAll(async () => {
    kube = await startKubeApiServerEmulator({
      namespaces: ['ns'],
      rbac: { [token]: { user: 'job@demo.iam.gserviceaccount.com', rules: CLUSTER_ADMIN_RULES } },
    });
  });
  afterAll(() => kube.stop());

  /** TLS connections the emulator accepts while `run` runs. */
  const connectionsDuring = async (run: () => Promise<void>): Promise<number> => {
    const before = kube.connections();
    await run();
    return kube.connections() - before;
  };

  it('with a kubeconfig: several requests, one connection', async () => {
    const { api } = await createCoreV1Api({ kind: 'kubeconfig', path: kube.kubeconfigPath });
    const opened = await connectionsDuring(async () => {
      for (let i = 0; i < 3; i++) await api.listNamespacedSecret({ namespace: 'ns' });
    });
    expect(opened).toBe(1);
  });

  it('with Google access: one connection, and still the current token on every request', async () => {
    let asked = 0;
    const { api } = await createCoreV1Api(
      { kind: 'google', endpoint: kube.endpoint, caPem: kube.caPem },
      async () => {
        asked++;
        return token;
      },
    );
    const opened = await connectionsDuring(async () => {
      for (let i = 0; i < 3; i++) await api.readNamespace({ name: 'ns' });
    });
    expect(opened).toBe(1);
    expect(asked).toBe(3);
    expect(kube.requests.list().slice(-3)).toEqual(
      Array.from({ length: 3 }, () =>
        expect.objectContaining({ identity: 'job@demo.iam.gserviceaccount.com', outcome: 200 }),
      ),
    );
  });

  it('refuses a kubeconfig whose current context names no cluster, saying which setting', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubeconfig-'));
    const file = path.join(dir, 'kubeconfig');
    fs.writeFileSync(file, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
    const attempt = createCoreV1Api({ kind: 'kubeconfig', path: file }, undefined, 'KUBECONFIG');
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow(
      /KUBECONFIG: the kubeconfig's current context names no cluster/,
    );
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
