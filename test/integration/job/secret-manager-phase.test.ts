import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { EXIT_CODES } from '../../../shared/job-result';
import { runJob, samplePullSecret } from '../../helpers/job';
import { secretManagerClient } from '../../helpers/secret-manager';

const SECRET = 'projects/demo-project/secrets/hyperfleet-cls-123-pull-secret';

describe('pull secret job, Secret Manager phase (CLI process against the emulator)', () => {
  let emulator: SecretManagerEmulator;
  let client: SecretManagerServiceClient;
  let env: Record<string, string>;

  beforeEach(async () => {
    emulator = await startSecretManagerEmulator();
    client = secretManagerClient(emulator.endpoint);
    env = {
      SECRET_MANAGER_EMULATOR_HOST: emulator.endpoint,
      GCP_PROJECT_ID: 'demo-project',
      CLUSTER_ID: 'cls-123',
      CLUSTER_NAME: 'production-cluster',
      PULL_SECRET_DATA: samplePullSecret(),
    };
  });
  afterEach(async () => {
    await client.close();
    await emulator.stop();
  });

  const calls = () => emulator.requests.list().map((r) => r.method);
  const versionStates = async () => {
    const [versions] = await client.listSecretVersions({ parent: SECRET });
    return versions.map((v) => `${v.name?.split('/').pop()}:${v.state}`);
  };

  it('creates the secret with every label and publishes version 1 as `current` on the first run, in 4 calls', async () => {
    const run = await runJob(env);
    expect(run.code).toBe(EXIT_CODES.success);
    expect(run.result).toMatchObject({
      outcome: 'succeeded',
      reason: 'PullSecretProvisioned',
      phases: ['secret-manager'],
      secret_manager: {
        secret: 'created',
        version: 'added',
        version_name: `${SECRET}/versions/1`,
        verified: true,
      },
    });
    expect(run.result.pull_secret_sha256_prefix).toMatch(/^[0-9a-f]{12}$/);
    // The server checks the version's CRC32C; the publication is one UpdateSecret on CreateSecret's etag.
    expect(calls()).toEqual(['GetSecret', 'CreateSecret', 'AddSecretVersion', 'UpdateSecret']);
    const [secret] = await client.getSecret({ name: SECRET });
    expect(
      Object.entries(secret.versionAliases ?? {}).map(([k, v]) => `${k}=${String(v)}`),
    ).toEqual(['current=1']);
    expect(secret.labels).toEqual({
      'managed-by': 'hyperfleet',
      adapter: 'pullsecret',
      'cluster-id': 'cls-123',
      'cluster-name': 'production-cluster',
      'resource-type': 'pull-secret',
      'hyperfleet-version': 'v1',
    });
    const [current] = await client.accessSecretVersion({ name: `${SECRET}/versions/current` });
    expect(current.payload?.data?.toString()).toBe(env.PULL_SECRET_DATA);
  });

  it('adds no version when the data is unchanged (2 calls) and version 2 when it changes', async () => {
    await runJob(env);
    emulator.requests.clear();
    const unchanged = await runJob(env);
    expect(unchanged.result.secret_manager).toMatchObject({
      secret: 'reused',
      version: 'unchanged',
      version_name: `${SECRET}/versions/1`,
    });
    expect(calls()).toEqual(['GetSecret', 'AccessSecretVersion']);
    // It compares with what readers read: the alias, not `latest`.
    expect(emulator.requests.list()[1]?.target).toBe(`${SECRET}/versions/current`);

    emulator.requests.clear();
    const changed = await runJob({
      ...env,
      PULL_SECRET_DATA: samplePullSecret('other-user', 'other-password'),
    });
    expect(changed.result.secret_manager).toMatchObject({
      version: 'added',
      version_name: `${SECRET}/versions/2`,
    });
    // SECRET_VERSION_RETENTION defaults to 1: the replaced version is destroyed, not billed on.
    expect(calls()).toEqual([
      'GetSecret',
      'AccessSecretVersion',
      'AddSecretVersion',
      'UpdateSecret',
      'ListSecretVersions',
      'DestroySecretVersion',
    ]);
    expect(changed.result.secret_manager?.destroyed_versions).toEqual([`${SECRET}/versions/1`]);
    expect(await versionStates()).toEqual(['2:ENABLED', '1:DESTROYED']);
  });

  it('refuses a secret it does not own and touches nothing', async () => {
    await client.createSecret({
      parent: 'projects/demo-project',
      secretId: 'hyperfleet-cls-123-pull-secret',
      secret: { replication: { automatic: {} }, labels: { owner: 'someone' } },
    });
    emulator.requests.clear();
    const run = await runJob(env);
    expect(run.code).toBe(EXIT_CODES.permanent);
    expect(run.result).toMatchObject({
      outcome: 'failed',
      reason: 'SecretOwnershipConflict',
      failure_kind: 'permanent',
    });
    expect(run.result.message).toContain('not managed by HyperFleet');
    expect(calls()).toEqual(['GetSecret']);
    expect(await versionStates()).toEqual([]);
  });

  it('exits non-zero for an invalid pull secret and writes nothing', async () => {
    const run = await runJob({ ...env, PULL_SECRET_DATA: '{"auths": {}}' });
    expect(run.code).toBe(EXIT_CODES.permanent);
    expect(run.result).toMatchObject({ outcome: 'failed', reason: 'InvalidPullSecret' });
    expect(emulator.requests.list()).toEqual([]);
  });

  it('exits 2 with a named variable for bad configuration, before any call', async () => {
    const run = await runJob({ ...env, GCP_PROJECT_ID: 'Not A Project' });
    expect(run.code).toBe(EXIT_CODES.configuration);
    expect(run.result.reason).toBe('InvalidConfiguration');
    expect(run.stderr).toContain('GCP_PROJECT_ID');
    expect(emulator.requests.list()).toEqual([]);
  });

  it('retries UNAVAILABLE twice with backoff, then succeeds', async () => {
    emulator.faults.add({ match: 'GetSecret', count: 2, status: 'UNAVAILABLE' });
    const run = await runJob(env);
    expect(run.code).toBe(EXIT_CODES.success);
    expect(
      emulator.requests
        .list()
        .filter((r) => r.method === 'GetSecret')
        .map((r) => r.outcome),
    ).toEqual(['UNAVAILABLE', 'UNAVAILABLE', 'NOT_FOUND']);
    const retries = run.lines.filter((line) => String(line.message).includes('retrying'));
    expect(retries).toHaveLength(2);
  });

  it('does not duplicate a version when an add times out after being applied', async () => {
    await runJob(env);
    // The add is applied, but the answer arrives after the client's deadline.
    emulator.faults.add({ match: 'AddSecretVersion', delayMs: 1500 });
    const run = await runJob({
      ...env,
      PULL_SECRET_DATA: samplePullSecret('new-user', 'new-password'),
      GCP_API_TIMEOUT: '500ms',
    });
    expect(run.code).toBe(EXIT_CODES.success);
    expect(run.result.secret_manager?.version_name).toBe(`${SECRET}/versions/2`);
    expect(await versionStates()).toEqual(['2:ENABLED', '1:DESTROYED']);
  });

  it('reports a transient failure with exit 4 when retries run out', async () => {
    emulator.faults.add({ match: 'GetSecret', count: 10, status: 'UNAVAILABLE' });
    const run = await runJob({ ...env, RETRY_ATTEMPTS: '3' });
    expect(run.code).toBe(EXIT_CODES.transient);
    expect(run.result).toMatchObject({
      outcome: 'failed',
      failure_kind: 'transient',
      reason: 'SecretManagerUnavailable',
    });
    expect(run.result.message).toContain(`GetSecret on ${SECRET} failed: UNAVAILABLE`);
  });

  it('reports PERMISSION_DENIED as permanent without retrying', async () => {
    emulator.faults.add({
      match: 'GetSecret',
      count: 5,
      status: 'PERMISSION_DENIED',
      message: 'Permission secretmanager.secrets.get denied',
    });
    const run = await runJob(env);
    expect(run.code).toBe(EXIT_CODES.permanent);
    expect(run.result.reason).toBe('PermissionDenied');
    expect(emulator.requests.list()).toHaveLength(1);
    // In the customer project, the fix is onboarding it (docs/deployment.md names the section by this title).
    expect(run.result.message).toContain(
      `GetSecret on ${SECRET} failed: PERMISSION_DENIED: Permission secretmanager.secrets.get denied. The job's service account lacks this right in the customer project demo-project: onboard the project as docs/deployment.md, "Onboarding a customer project" says`,
    );
  });

  it('destroys versions beyond SECRET_VERSION_RETENTION; 0 keeps every version', async () => {
    const keepAll = { ...env, SECRET_VERSION_RETENTION: '0' };
    for (const n of [1, 2, 3])
      await runJob({ ...keepAll, PULL_SECRET_DATA: samplePullSecret(`user${n}`, `password${n}`) });
    expect(calls()).not.toContain('ListSecretVersions');
    expect(await versionStates()).toEqual(['3:ENABLED', '2:ENABLED', '1:ENABLED']);
    const run = await runJob({
      ...env,
      PULL_SECRET_DATA: samplePullSecret('user4', 'password4'),
      SECRET_VERSION_RETENTION: '2',
    });
    expect(run.result.secret_manager?.destroyed_versions).toEqual([
      `${SECRET}/versions/2`,
      `${SECRET}/versions/1`,
    ]);
    expect(await versionStates()).toEqual(['4:ENABLED', '3:ENABLED', '2:DESTROYED', '1:DESTROYED']);

    // Version 5 under a retention of 5: nothing can be over it, so no list.
    emulator.requests.clear();
    await runJob({
      ...env,
      PULL_SECRET_DATA: samplePullSecret('user5', 'password5'),
      SECRET_VERSION_RETENTION: '5',
    });
    expect(calls()).not.toContain('ListSecretVersions');
  });

  it('a failed DestroySecretVersion is logged and the run still delivers', async () => {
    await runJob(env);
    emulator.faults.add({ match: 'DestroySecretVersion', count: 5, status: 'PERMISSION_DENIED' });
    const run = await runJob({
      ...env,
      PULL_SECRET_DATA: samplePullSecret('rotated-user', 'rotated-password'),
    });
    expect(run.code).toBe(EXIT_CODES.success);
    expect(run.result.secret_manager).toMatchObject({
      version: 'added',
      version_name: `${SECRET}/versions/2`,
      destroyed_versions: [],
    });
    expect(run.stdout).toContain('"reason":"RetentionFailed"');
    expect(await versionStates()).toEqual(['2:ENABLED', '1:ENABLED']);
  });

  it('--dry-run reads but never writes', async () => {
    const run = await runJob(env, ['--dry-run']);
    expect(run.code).toBe(EXIT_CODES.success);
    expect(run.result).toMatchObject({
      dry_run: true,
      secret_manager: { secret: 'created', version: 'added' },
    });
    expect(calls()).toEqual(['GetSecret']);
  });

  it('keeps the pull secret, its auth strings and the credentials out of every output', async () => {
    const secret = samplePullSecret('leak-canary-user', 'leak-canary-password');
    const runs = [
      await runJob({ ...env, PULL_SECRET_DATA: secret, LOG_LEVEL: 'debug' }),
      await runJob({ ...env, PULL_SECRET_DATA: secret, LOG_FORMAT: 'text', LOG_LEVEL: 'debug' }),
      await runJob({
        ...env,
        PULL_SECRET_DATA: secret.replace('"auths"', '"auths_"'),
        LOG_LEVEL: 'debug',
      }),
    ];
    const auth = Buffer.from('leak-canary-user:leak-canary-password').toString('base64');
    for (const run of runs) {
      const output = run.stdout + run.stderr;
      for (const needle of [
        secret,
        Buffer.from(secret).toString('base64'),
        auth,
        'leak-canary-password',
      ]) {
        expect(output).not.toContain(needle);
      }
    }
  });

  it('prints its version', async () => {
    const { runNode, JOB_CLI } = await import('../../helpers/run-process');
    const run = await runNode(JOB_CLI, ['version'], {});
    expect(run.stdout).toMatch(/^pull-secret \d+\.\d+\.\d+/);
    const usage = await runNode(JOB_CLI, ['run-job', 'other'], {});
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Usage');
  });
});
