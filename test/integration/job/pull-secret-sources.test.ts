import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { EXIT_CODES } from '../../../shared/job-result';
import { readySpec } from '../../helpers/hyperfleet';
import { runJob, samplePullSecret } from '../../helpers/job';
import { secretManagerClient } from '../../helpers/secret-manager';

const SECRET = (id: string) => `projects/demo-project/secrets/hyperfleet-${id}-pull-secret`;

describe('pull secret job: resolving the pull secret from a reference', () => {
  let sm: SecretManagerEmulator;
  let hyperfleet: HyperFleetApiEmulator;

  beforeAll(async () => {
    sm = await startSecretManagerEmulator();
    hyperfleet = await startHyperFleetApiEmulator();
  });
  afterAll(async () => {
    await sm.stop();
    await hyperfleet.stop();
  });

  const env = (clusterId: string, extra: Record<string, string> = {}) => ({
    SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
    HYPERFLEET_API_BASE_URL: hyperfleet.baseUrl,
    GCP_PROJECT_ID: 'demo-project',
    CLUSTER_ID: clusterId,
    ...extra,
  });
  const latest = async (clusterId: string) => {
    const client = secretManagerClient(sm.endpoint);
    const [version] = await client.accessSecretVersion({
      name: `${SECRET(clusterId)}/versions/latest`,
    });
    await client.close();
    return version.payload?.data?.toString();
  };
  const create = (name: string, spec: Record<string, unknown>) =>
    (hyperfleet.store.createCluster({ kind: 'Cluster', name, spec }, 't') as { id: string }).id;

  it('reads the dockerconfigjson from the cluster spec, as a string or as an object', async () => {
    const text = samplePullSecret('spec-user', 'spec-password');
    const asString = create('spec-string', readySpec(text));
    const run = await runJob(env(asString, { PULL_SECRET_SOURCE: 'cluster-spec' }));
    expect(run.code).toBe(EXIT_CODES.success);
    expect(await latest(asString)).toBe(text);

    const asObject = create('spec-object', {
      ...readySpec(),
      pullSecret: { data: JSON.parse(text) as object },
    });
    await runJob(env(asObject, { PULL_SECRET_SOURCE: 'cluster-spec' }));
    expect(JSON.parse((await latest(asObject)) ?? '')).toEqual(JSON.parse(text));
  });

  it('reads a configured Secret Manager version (the platform default pull secret)', async () => {
    const client = secretManagerClient(sm.endpoint);
    const [defaultSecret] = await client.createSecret({
      parent: 'projects/demo-platform',
      secretId: 'default-pull-secret',
      secret: { replication: { automatic: {} } },
    });
    const text = samplePullSecret('platform-user', 'platform-password');
    const [version] = await client.addSecretVersion({
      parent: defaultSecret.name,
      payload: { data: Buffer.from(text) },
    });
    await client.close();
    const id = create('default-source', {
      platform: { type: 'gcp', gcp: { projectID: 'demo-project' } },
    });
    // The default is a platform credential: read, but copied to the tenant project only on opt-in
    // (test/integration/job/platform-default.test.ts covers the rest).
    const run = await runJob(
      env(id, {
        PULL_SECRET_SOURCE: 'secret-manager',
        PULL_SECRET_SECRET_VERSION: version.name!,
        COPY_PLATFORM_DEFAULT_TO_TENANT: 'true',
      }),
    );
    expect(run.code).toBe(EXIT_CODES.success);
    expect(run.result.pull_secret_source).toBe('platform-default');
    expect(await latest(id)).toBe(text);
    const missing = await runJob(
      env(id, {
        PULL_SECRET_SOURCE: 'secret-manager',
        PULL_SECRET_SECRET_VERSION: 'projects/demo-platform/secrets/nope/versions/1',
      }),
    );
    expect(missing.result).toMatchObject({
      outcome: 'failed',
      reason: 'DefaultPullSecretNotFound',
      failure_kind: 'permanent',
    });
  });

  it('fails permanently when the spec has no pull secret or the cluster is gone', async () => {
    const empty = create('no-pull-secret', {
      platform: { type: 'gcp', gcp: { projectID: 'demo-project' } },
    });
    const run = await runJob(env(empty, { PULL_SECRET_SOURCE: 'cluster-spec' }));
    expect(run.code).toBe(EXIT_CODES.permanent);
    expect(run.result).toMatchObject({
      reason: 'InvalidPullSecret',
      message: expect.stringContaining('spec.pullSecret.data'),
    });
    const gone = await runJob(
      env('0195a1b2-0000-7000-8000-00000000dead', { PULL_SECRET_SOURCE: 'cluster-spec' }),
    );
    expect(gone.result).toMatchObject({ reason: 'ClusterNotFound', failure_kind: 'permanent' });
  });

  it('retries the HyperFleet API and reports it unavailable as transient', async () => {
    const id = create('api-flaky', readySpec(samplePullSecret('flaky', 'flaky-password')));
    hyperfleet.faults.add({
      match: `GET /api/hyperfleet/v1/clusters/${id}`,
      count: 10,
      status: 503,
    });
    const run = await runJob(
      env(id, { PULL_SECRET_SOURCE: 'cluster-spec', HYPERFLEET_API_RETRY_ATTEMPTS: '2' }),
    );
    expect(run.code).toBe(EXIT_CODES.transient);
    expect(run.result.reason).toBe('HyperFleetApiUnavailable');
    hyperfleet.faults.clear();
  });

  it('requires a source and names the variables', async () => {
    const noSource = await runJob(env('cls-x'));
    expect(noSource.result.message).toContain(
      'PULL_SECRET_SOURCE: or PULL_SECRET_DATA is required',
    );
    const noApi = await runJob({
      ...env('cls-x', { PULL_SECRET_SOURCE: 'cluster-spec' }),
      HYPERFLEET_API_BASE_URL: undefined,
    });
    expect(noApi.result.message).toContain(
      'HYPERFLEET_API_BASE_URL: is required to read the pull secret from the cluster spec',
    );
  });
});
