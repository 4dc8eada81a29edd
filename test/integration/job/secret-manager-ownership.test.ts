// Issue 26, item 7: a Secret Manager secret is ours only by the same three labels as a Kubernetes
// Secret (managed-by=hyperfleet, adapter=pullsecret, cluster-id=<this cluster>). A secret that says
// only managed-by=hyperfleet (another HyperFleet component's) or names another cluster (SECRET_NAME
// pointing at a neighbour's secret) is never claimed, written, annotated or deleted.
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { secretManagerLabels } from '../../../functions/pull-secret-job/config/labels';
import { EXIT_CODES } from '../../../shared/job-result';
import { runJob, samplePullSecret } from '../../helpers/job';
import { secretManagerClient } from '../../helpers/secret-manager';

const PROJECT = 'demo-project';

describe('pull secret job: Secret Manager ownership by managed-by, adapter and cluster-id', () => {
  let sm: SecretManagerEmulator;
  let client: SecretManagerServiceClient;

  beforeAll(async () => {
    sm = await startSecretManagerEmulator();
    client = secretManagerClient(sm.endpoint);
  });
  afterAll(async () => {
    await client.close();
    await sm.stop();
  });

  const path = (secretId: string) => `projects/${PROJECT}/secrets/${secretId}`;
  const seed = async (secretId: string, labels: Record<string, string>) => {
    await client.createSecret({
      parent: `projects/${PROJECT}`,
      secretId,
      secret: { replication: { automatic: {} }, labels, annotations: { note: 'not yours' } },
    });
    await client.addSecretVersion({
      parent: path(secretId),
      payload: { data: Buffer.from('someone else') },
    });
  };
  const env = (clusterId: string, extra: Record<string, string> = {}) => ({
    SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
    GCP_PROJECT_ID: PROJECT,
    CLUSTER_ID: clusterId,
    GENERATION: '1',
    CLOUD_RUN_EXECUTION: `pullsecret-job-${clusterId}`,
    ...extra,
  });
  const untouched = async (secretId: string) => {
    const [secret] = await client.getSecret({ name: path(secretId) });
    expect(secret.annotations).toEqual({ note: 'not yours' });
    const [versions] = await client.listSecretVersions({ parent: path(secretId) });
    expect(versions.map((v) => String(v.state))).toEqual(['ENABLED']);
  };

  it.each([
    ['another adapter', 'cls-o1', { 'managed-by': 'hyperfleet', adapter: 'other-adapter' }],
    ['no adapter label', 'cls-o2', { 'managed-by': 'hyperfleet' }],
    ['another cluster', 'cls-o3', secretManagerLabels({ clusterId: 'cls-neighbour' })],
  ])(
    'refuses to claim or write a secret labelled managed-by=hyperfleet but with %s',
    async (_, clusterId, labels) => {
      const secretId = `hyperfleet-${clusterId}-pull-secret`;
      await seed(secretId, labels);
      const run = await runJob(env(clusterId, { PULL_SECRET_DATA: samplePullSecret() }));
      expect(run.code).toBe(EXIT_CODES.permanent);
      expect(run.result).toMatchObject({
        outcome: 'failed',
        reason: 'SecretOwnershipConflict',
        failure_kind: 'permanent',
      });
      expect(run.result.message).toContain(`cluster-id=${clusterId}`);
      await untouched(secretId);

      const removal = await runJob(env(clusterId, { OPERATION: 'delete', GENERATION: '2' }));
      expect(removal.code).toBe(EXIT_CODES.success);
      expect(removal.result.secret_manager?.secret).toBe('foreign');
      await untouched(secretId);
    },
  );

  it("never writes a neighbour's secret named through SECRET_NAME", async () => {
    const neighbour = 'hyperfleet-cls-victim-pull-secret';
    await seed(neighbour, secretManagerLabels({ clusterId: 'cls-victim' }));
    const run = await runJob(
      env('cls-attacker', { SECRET_NAME: neighbour, PULL_SECRET_DATA: samplePullSecret() }),
    );
    expect(run.result.reason).toBe('SecretOwnershipConflict');
    await untouched(neighbour);
  });
});
