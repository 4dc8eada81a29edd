// Issue 26, item 3: placement (another adapter's data) and the place records on the tenant's own
// Secret Manager secret cannot steer the job's writes or removals. The pull secret of cluster X goes
// to clusters-X/X-pull-secret only: any other target is refused before any call, and a recorded
// place outside that rule is never removed from, so cluster B's pull secret survives cluster A's
// runs whatever A's placement or records say.
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { placeKey } from '../../../functions/pull-secret-job/places/place-record';
import { EXIT_CODES } from '../../../shared/job-result';
import { runJob, samplePullSecret } from '../../helpers/job';
import { coreApi, dockerConfig } from '../../helpers/kubernetes';
import { secretManagerClient } from '../../helpers/secret-manager';

const A = 'cls-a';
const B = 'cls-b';
const SECRET_A = `projects/demo-project/secrets/hyperfleet-${A}-pull-secret`;

describe('a forged placement or place record cannot steer the job (issue 26, item 3)', () => {
  let sm: SecretManagerEmulator;
  let kube: KubeApiServerEmulator;
  let env: Record<string, string>;

  beforeAll(async () => {
    sm = await startSecretManagerEmulator();
    kube = await startKubeApiServerEmulator({
      namespaces: [`clusters-${A}`, `clusters-${B}`, 'kube-system'],
    });
    // Cluster B's pull secret, written by B's own execution.
    await coreApi(kube).createNamespacedSecret({
      namespace: `clusters-${B}`,
      body: {
        metadata: {
          name: `${B}-pull-secret`,
          labels: { 'managed-by': 'hyperfleet', adapter: 'pullsecret', 'cluster-id': B },
        },
        type: 'kubernetes.io/dockerconfigjson',
        data: dockerConfig(),
      },
    });
    env = {
      SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
      KUBECONFIG: kube.kubeconfigPath,
      GCP_PROJECT_ID: 'demo-project',
      CLUSTER_ID: A,
      GENERATION: '1',
      LAUNCH_ATTEMPT: '1',
      CLOUD_RUN_EXECUTION: 'pullsecret-job-forged-1',
      PULL_SECRET_DATA: samplePullSecret(),
    };
  });
  afterAll(async () => {
    await sm.stop();
    await kube.stop();
  });

  const bStillThere = async () =>
    (
      await coreApi(kube).readNamespacedSecret({
        namespace: `clusters-${B}`,
        name: `${B}-pull-secret`,
      })
    ).metadata?.labels?.['cluster-id'];

  it.each([
    ['kube-system', {}, `clusters-${A}`],
    [`clusters-${B}`, {}, `clusters-${A}`],
    // The shared layout (seed 004's clusters): the per-cluster namespace is no longer ours either.
    [`clusters-${A}`, { MANAGEMENT_NAMESPACE_TEMPLATE: 'clusters' }, 'clusters'],
    ['kube-system', { MANAGEMENT_NAMESPACE_TEMPLATE: 'clusters' }, 'clusters'],
  ])(
    'namespace %s (layout %j): refused as InvalidManagementNamespace before any call, nothing written anywhere',
    async (namespace, layout, allowed) => {
      kube.requests.clear();
      sm.requests.clear();
      const run = await runJob({ ...env, ...layout, MANAGEMENT_NAMESPACE: namespace });
      expect(run.code).toBe(EXIT_CODES.permanent);
      expect(run.result).toMatchObject({ outcome: 'failed', reason: 'InvalidManagementNamespace' });
      expect(run.result.message).toContain(`may only be ${allowed}/${A}-pull-secret`);
      expect(kube.requests.list()).toEqual([]);
      expect(sm.requests.list()).toEqual([]);
      expect(await bStillThere()).toBe(B);
    },
  );

  it("a place record edited in the tenant's project to name cluster B's Secret: A's delete removes nothing there and drops the record", async () => {
    const applied = await runJob({ ...env, MANAGEMENT_NAMESPACE: `clusters-${A}` });
    expect(applied.result).toMatchObject({ outcome: 'succeeded' });
    // The tenant owns the project: it can add an annotation that records B's place as A's.
    const client = secretManagerClient(sm.endpoint);
    const [secret] = await client.getSecret({ name: SECRET_A });
    const forged = { cluster: 'default', namespace: `clusters-${B}`, name: `${B}-pull-secret` };
    await client.updateSecret({
      secret: {
        name: SECRET_A,
        annotations: {
          ...(secret.annotations ?? {}),
          [placeKey(forged)]: `${forged.cluster}/${forged.namespace}/${forged.name}`,
        },
      },
      updateMask: { paths: ['annotations'] },
    });
    const removed = await runJob({
      ...env,
      MANAGEMENT_NAMESPACE: `clusters-${A}`,
      OPERATION: 'delete',
      PULL_SECRET_DATA: undefined as unknown as string,
      GENERATION: '2',
      CLOUD_RUN_EXECUTION: 'pullsecret-job-forged-2',
    });
    expect(removed.result).toMatchObject({ outcome: 'succeeded', reason: 'CleanupConfirmed' });
    expect(await bStillThere()).toBe(B);
    expect(
      kube.requests
        .list()
        .filter(
          (r) => r.target.startsWith(`/api/v1/namespaces/clusters-${B}/`) && r.method !== 'GET',
        ),
    ).toEqual([]);
    expect(removed.stdout).toContain('not a place ours can be');
  });
});
