// Issue 41: the order of the platform default's versions on a management cluster, acted out by the
// job itself against the emulators. `latest` is read as the newest ENABLED version (a disabled
// newest one fails no cluster), the Secret is stamped with the number read
// (hyperfleet.io/default-version), and a run of the same generation that read an older default
// (a resync after a rotation's pinned run) stands aside: exit 0, nothing written, no status.
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { planFromJobResult } from '../../../functions/reporter/report/report-outcomes';
import { EXIT_CODES, type JobResult } from '../../../shared/job-result';
import { buildStatus } from '../../../shared/status/status-builder';
import { runJob, samplePullSecret } from '../../helpers/job';
import { coreApi } from '../../helpers/kubernetes';
import { secretManagerClient } from '../../helpers/secret-manager';

const ID = 'cls-order';
const NS = `clusters-${ID}`;
const JOB = 'projects/demo-platform/locations/us-central1/jobs/pullsecret-job';
const DEFAULT = 'projects/demo-platform/secrets/default-pull-secret';
const bytesOf = (n: number) => samplePullSecret(`platform-user-${n}`, `password-${n}`);

describe('pull secret job: the platform default, newest enabled and never back to an older one', () => {
  let sm: SecretManagerEmulator;
  let kube: KubeApiServerEmulator;
  let client: SecretManagerServiceClient;
  let attempt = 0;

  const run = (version: string, generation = 1) => {
    attempt += 1;
    return runJob({
      SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
      KUBECONFIG: kube.kubeconfigPath,
      GCP_PROJECT_ID: 'demo-project',
      CLUSTER_ID: ID,
      GENERATION: String(generation),
      LAUNCH_ATTEMPT: String(attempt),
      CLOUD_RUN_EXECUTION: `pullsecret-job-order-${attempt}`,
      MANAGEMENT_NAMESPACE: NS,
      PULL_SECRET_SOURCE: 'secret-manager',
      PULL_SECRET_SECRET_VERSION: `${DEFAULT}/versions/${version}`,
    });
  };
  const onCluster = async () => {
    const secret = await coreApi(kube).readNamespacedSecret({
      namespace: NS,
      name: `${ID}-pull-secret`,
    });
    return {
      bytes: Buffer.from(secret.data?.['.dockerconfigjson'] ?? '', 'base64').toString(),
      defaultVersion: secret.metadata?.annotations?.['hyperfleet.io/default-version'],
      generation: secret.metadata?.annotations?.['hyperfleet.io/generation'],
      resourceVersion: secret.metadata?.resourceVersion,
    };
  };
  const addVersion = (n: number) =>
    client.addSecretVersion({ parent: DEFAULT, payload: { data: Buffer.from(bytesOf(n)) } });
  const statusData = (result: JobResult) => {
    const plan = planFromJobResult(result, JOB);
    if (!('outcome' in plan)) throw new Error(`expected a report, got ${plan.skip}`);
    return buildStatus(plan.outcome, 1, new Date()).data;
  };

  beforeAll(async () => {
    sm = await startSecretManagerEmulator();
    kube = await startKubeApiServerEmulator({ namespaces: [NS] });
    client = secretManagerClient(sm.endpoint);
    await client.createSecret({
      parent: 'projects/demo-platform',
      secretId: 'default-pull-secret',
      secret: { replication: { automatic: {} } },
    });
    await addVersion(1);
  });
  afterAll(async () => {
    await client.close();
    await sm.stop();
    await kube.stop();
  });

  it('stamps the Secret with the version `latest` resolved to, and reports it', async () => {
    const first = await run('latest');
    expect(first.code).toBe(EXIT_CODES.success);
    expect(first.result.default_version).toBe('1');
    expect(await onCluster()).toMatchObject({ bytes: bytesOf(1), defaultVersion: '1' });
    expect(statusData(first.result)).toMatchObject({
      pull_secret_source: 'platform-default',
      default_version: '1',
    });
  });

  it('reads `latest` as the newest enabled version: a disabled newest version fails nothing', async () => {
    await addVersion(2);
    const [third] = await addVersion(3);
    await client.disableSecretVersion({ name: third.name });
    // Secret Manager's own `latest` is version 3, disabled: accessing it fails.
    await expect(
      client.accessSecretVersion({ name: `${DEFAULT}/versions/latest` }),
    ).rejects.toThrow(/FAILED_PRECONDITION|is in DISABLED state/);
    const resync = await run('latest');
    expect(resync.code).toBe(EXIT_CODES.success);
    expect(resync.result.default_version).toBe('2');
    expect(await onCluster()).toMatchObject({ bytes: bytesOf(2), defaultVersion: '2' });
    // Listed, then read by number: never Secret Manager's `latest`.
    const calls = sm.requests.list().filter((r) => r.target.startsWith(DEFAULT));
    expect(calls.slice(-2).map((r) => `${r.method} ${r.target}`)).toEqual([
      `ListSecretVersions ${DEFAULT}`,
      `AccessSecretVersion ${DEFAULT}/versions/2`,
    ]);
  });

  it('a run of the same generation that read an older default stands aside: exit 0, nothing written, no status', async () => {
    const before = await onCluster();
    const late = await run('1');
    expect(late.code).toBe(EXIT_CODES.success);
    expect(late.result).toMatchObject({
      outcome: 'stood-aside',
      reason: 'SupersededExecution',
      default_version: '1',
    });
    expect(late.result.message).toContain('platform default version 2');
    expect(late.result.kubernetes).toBeUndefined();
    expect(await onCluster()).toEqual(before);
    expect(planFromJobResult(late.result, JOB)).toMatchObject({ decision: 'stood-aside' });
  });

  it('a newer generation is ordered by the generation stamp: it writes whichever default it read', async () => {
    const next = await run('1', 2);
    expect(next.code).toBe(EXIT_CODES.success);
    expect(await onCluster()).toMatchObject({
      bytes: bytesOf(1),
      defaultVersion: '1',
      generation: '2',
    });
  });

  it('fails with a clear reason when the default has no enabled version at all', async () => {
    const [versions] = await client.listSecretVersions({ parent: DEFAULT });
    for (const v of versions.filter((version) => version.state === 'ENABLED'))
      await client.disableSecretVersion({ name: v.name });
    const none = await run('latest', 3);
    expect(none.code).toBe(EXIT_CODES.permanent);
    expect(none.result).toMatchObject({ reason: 'DefaultPullSecretNotFound' });
    expect(none.result.message).toContain('has no enabled version');
  });
});
