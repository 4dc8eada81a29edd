import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { EXIT_CODES } from '../../../shared/job-result';
import { runJob, samplePullSecret } from '../../helpers/job';
import { coreApi, dockerConfig } from '../../helpers/kubernetes';
import { secretManagerClient, tombstoneOf } from '../../helpers/secret-manager';

const NS = 'clusters-cls-del';
const SECRET = 'projects/demo-project/secrets/hyperfleet-cls-del-pull-secret';

describe('pull secret job, OPERATION=delete', () => {
  let sm: SecretManagerEmulator;
  let kube: KubeApiServerEmulator;
  let env: Record<string, string>;

  beforeEach(async () => {
    sm = await startSecretManagerEmulator();
    kube = await startKubeApiServerEmulator({ namespaces: [NS] });
    env = {
      SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
      KUBECONFIG: kube.kubeconfigPath,
      GCP_PROJECT_ID: 'demo-project',
      CLUSTER_ID: 'cls-del',
      MANAGEMENT_NAMESPACE: NS,
      PULL_SECRET_DATA: samplePullSecret(),
    };
    expect((await runJob(env)).code).toBe(EXIT_CODES.success);
    expect(
      (await runJob({ ...env, PULL_SECRET_DATA: samplePullSecret('v2', 'password-two') })).code,
    ).toBe(EXIT_CODES.success);
  });
  afterEach(async () => {
    await sm.stop();
    await kube.stop();
  });

  const deleteEnv = (extra: Record<string, string> = {}) => ({
    ...env,
    PULL_SECRET_DATA: undefined,
    OPERATION: 'delete',
    ...extra,
  });

  it('deletes the Kubernetes Secret and destroys every version, leaving a tombstone that expires; a second run has nothing left but the ttl to renew', async () => {
    const run = await runJob(deleteEnv());
    expect(run.code).toBe(EXIT_CODES.success);
    expect(run.result).toMatchObject({
      reason: 'CleanupConfirmed',
      phases: ['kubernetes', 'secret-manager'],
      kubernetes: { outcome: 'deleted' },
      secret_manager: { secret: 'deleted', destroyed_versions: [`${SECRET}/versions/2`] },
    });
    expect(run.result.message).toContain('tombstone');
    // No DeleteSecret: the secret stays, without bytes, until Secret Manager deletes it (25 h).
    expect(sm.requests.list().filter((r) => r.method === 'DeleteSecret')).toEqual([]);
    const client = secretManagerClient(sm.endpoint);
    const tombstone = await tombstoneOf(client, SECRET);
    expect(tombstone?.versions).toEqual(['2:DESTROYED', '1:DESTROYED']);
    expect(tombstone?.expiresInSeconds).toBeGreaterThan(25 * 3600 - 60);
    expect(tombstone?.expiresInSeconds).toBeLessThanOrEqual(25 * 3600);
    await expect(
      coreApi(kube).readNamespacedSecret({ namespace: NS, name: 'cls-del-pull-secret' }),
    ).rejects.toMatchObject({ code: 404 });
    const again = await runJob(deleteEnv({ TOMBSTONE_TTL: '2h' }));
    expect(again.result).toMatchObject({
      outcome: 'succeeded',
      kubernetes: { outcome: 'absent' },
      secret_manager: { secret: 'absent', destroyed_versions: [] },
    });
    expect((await tombstoneOf(client, SECRET))?.expiresInSeconds).toBeLessThanOrEqual(2 * 3600);
    await client.close();
  });

  it('ON_DELETE=retain keeps the secret and disables its versions', async () => {
    const run = await runJob(deleteEnv({ ON_DELETE: 'retain' }));
    expect(run.result).toMatchObject({
      outcome: 'succeeded',
      secret_manager: { secret: 'retained', version: 'disabled' },
    });
    const client = secretManagerClient(sm.endpoint);
    const [versions] = await client.listSecretVersions({ parent: SECRET });
    // The setup's first version was destroyed when the second replaced it (SECRET_VERSION_RETENTION=1).
    expect(versions.map((v) => v.state)).toEqual(['DISABLED', 'DESTROYED']);
    await client.close();
  });

  it('leaves foreign resources alone', async () => {
    await coreApi(kube).deleteNamespacedSecret({ namespace: NS, name: 'cls-del-pull-secret' });
    await coreApi(kube).createNamespacedSecret({
      namespace: NS,
      body: {
        metadata: { name: 'cls-del-pull-secret' },
        type: 'kubernetes.io/dockerconfigjson',
        data: dockerConfig(),
      },
    });
    const client = secretManagerClient(sm.endpoint);
    await client.updateSecret({
      secret: { name: SECRET, labels: { owner: 'someone-else' } },
      updateMask: { paths: ['labels'] },
    });
    const run = await runJob(deleteEnv());
    expect(run.result).toMatchObject({
      outcome: 'succeeded',
      kubernetes: { outcome: 'foreign' },
      secret_manager: { secret: 'foreign' },
    });
    await expect(client.getSecret({ name: SECRET })).resolves.toBeTruthy();
    await expect(
      coreApi(kube).readNamespacedSecret({ namespace: NS, name: 'cls-del-pull-secret' }),
    ).resolves.toBeTruthy();
    await client.close();
  });

  it('treats a missing namespace as already gone', async () => {
    // Another cluster, whose namespace clusters-{id} is already gone.
    const run = await runJob(
      deleteEnv({ CLUSTER_ID: 'gone', MANAGEMENT_NAMESPACE: 'clusters-gone' }),
    );
    expect(run.result).toMatchObject({
      outcome: 'succeeded',
      kubernetes: { namespace: 'clusters-gone', outcome: 'absent' },
    });
  });
});
