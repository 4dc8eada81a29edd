import { createCoreV1Api } from '../../../functions/pull-secret-job/kubernetes/kubernetes-access';
import { CLUSTER_ADMIN_RULES } from '../../../emulators/kube-apiserver/rbac';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';

describe('management cluster access with a Google access token (GKE / Connect Gateway mode)', () => {
  let kube: KubeApiServerEmulator;

  beforeAll(async () => {
    kube = await startKubeApiServerEmulator({
      namespaces: ['ns'],
      rbac: {
        'ya29.token-one-aaaaaa': {
          user: 'job@demo.iam.gserviceaccount.com',
          rules: CLUSTER_ADMIN_RULES,
        },
        'ya29.token-two-bbbbbb': {
          user: 'job@demo.iam.gserviceaccount.com',
          rules: CLUSTER_ADMIN_RULES,
        },
      },
    });
  });
  afterAll(() => kube.stop());

  it('verifies the cluster CA and sends the current token on every request', async () => {
    let token = 'ya29.token-one-aaaaaa';
    let asked = 0;
    const { api, identity } = await createCoreV1Api(
      { kind: 'google', endpoint: kube.endpoint, caPem: kube.caPem },
      async () => {
        asked++;
        return token;
      },
    );
    expect(identity).toBe("the job's Google service account");
    await api.listNamespacedSecret({ namespace: 'ns' });
    token = 'ya29.token-two-bbbbbb'; // google-auth-library refreshed it
    await api.listNamespacedSecret({ namespace: 'ns' });
    expect(asked).toBe(2);
    expect(kube.requests.list().map((r) => [r.identity, r.outcome])).toEqual([
      ['job@demo.iam.gserviceaccount.com', 200],
      ['job@demo.iam.gserviceaccount.com', 200],
    ]);
  });

  it('refuses a server whose certificate is not signed by the configured CA', async () => {
    const other = await startKubeApiServerEmulator();
    const { api } = await createCoreV1Api(
      { kind: 'google', endpoint: kube.endpoint, caPem: other.caPem },
      async () => 'ya29.token-one-aaaaaa',
    );
    await expect(api.listNamespacedSecret({ namespace: 'ns' })).rejects.toThrow(
      /certificate|self-signed|unable to verify/i,
    );
    await other.stop();
  });
});
