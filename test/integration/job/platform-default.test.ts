// Issue 26, item 5: the platform's default pull secret is a platform credential. When a cluster uses
// it, the job writes it to the management cluster only; the tenant's own GCP project (where the
// customer reads every secret) gets no version holding it, unless the platform opts in
// (COPY_PLATFORM_DEFAULT_TO_TENANT). The status data says that the default is in use.
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import { decideHyperShift } from '../../../emulators/pullsecret/hypershift/decide';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { planFromJobResult } from '../../../functions/reporter/report/report-outcomes';
import { buildStatus } from '../../../shared/status/status-builder';
import { secretManagerLabels } from '../../../functions/pull-secret-job/config/labels';
import { EXIT_CODES, type JobResult } from '../../../shared/job-result';
import { CLAIM_ANNOTATIONS } from '../../../shared/pull-secret/claim';
import { runJob, samplePullSecret } from '../../helpers/job';
import { coreApi } from '../../helpers/kubernetes';
import { secretManagerClient } from '../../helpers/secret-manager';

const TENANT = 'demo-project';
const PLATFORM_PASSWORD = 'platform-password-0d3f5e';
const DEFAULT_TEXT = samplePullSecret('platform-user', PLATFORM_PASSWORD);
const JOB = 'projects/demo-platform/locations/us-central1/jobs/pullsecret-job';

describe('pull secret job: the platform default pull secret stays out of the tenant project', () => {
  let sm: SecretManagerEmulator;
  let kube: KubeApiServerEmulator;
  let client: SecretManagerServiceClient;
  let defaultVersion: string;

  const ns = (id: string) => `clusters-${id}`;
  const tenantSecret = (id: string) => `projects/${TENANT}/secrets/hyperfleet-${id}-pull-secret`;

  beforeAll(async () => {
    sm = await startSecretManagerEmulator();
    kube = await startKubeApiServerEmulator({
      namespaces: ['cls-d1', 'cls-d2', 'cls-d3', 'cls-d4'].map(ns),
    });
    client = secretManagerClient(sm.endpoint);
    const [secret] = await client.createSecret({
      parent: 'projects/demo-platform',
      secretId: 'default-pull-secret',
      secret: { replication: { automatic: {} } },
    });
    const [version] = await client.addSecretVersion({
      parent: secret.name,
      payload: { data: Buffer.from(DEFAULT_TEXT) },
    });
    defaultVersion = version.name!;
  });
  afterAll(async () => {
    await client.close();
    await sm.stop();
    await kube.stop();
  });

  const env = (id: string, extra: Record<string, string> = {}) => ({
    SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
    KUBECONFIG: kube.kubeconfigPath,
    GCP_PROJECT_ID: TENANT,
    CLUSTER_ID: id,
    GENERATION: '1',
    CLOUD_RUN_EXECUTION: `pullsecret-job-${id}`,
    MANAGEMENT_NAMESPACE: ns(id),
    PULL_SECRET_SOURCE: 'secret-manager',
    PULL_SECRET_SECRET_VERSION: defaultVersion,
    ...extra,
  });

  const kubernetesBytes = async (id: string) => {
    const secret = await coreApi(kube).readNamespacedSecret({
      namespace: ns(id),
      name: `${id}-pull-secret`,
    });
    return Buffer.from(secret.data?.['.dockerconfigjson'] ?? '', 'base64').toString();
  };
  /** What the Kubernetes Secret says about its source: what to read, and the version read. */
  const sourceAnnotations = async (id: string) => {
    const secret = await coreApi(kube).readNamespacedSecret({
      namespace: ns(id),
      name: `${id}-pull-secret`,
    });
    const annotations = secret.metadata?.annotations ?? {};
    return {
      path: annotations['hyperfleet.io/gcp-secret-path'],
      version: annotations['hyperfleet.io/gcp-secret-version'],
    };
  };
  const defaultSecret = () => defaultVersion.replace(/\/versions\/[^/]+$/, '');

  /** Every readable version of every secret in the tenant project, as text. */
  const tenantPayloads = async (): Promise<string[]> => {
    const [secrets] = await client.listSecrets({ parent: `projects/${TENANT}` });
    const payloads: string[] = [];
    for (const secret of secrets) {
      const [versions] = await client.listSecretVersions({ parent: secret.name });
      for (const version of versions.filter((v) => v.state === 'ENABLED')) {
        const [read] = await client.accessSecretVersion({ name: version.name });
        payloads.push(Buffer.from(read.payload?.data ?? '').toString());
      }
    }
    return payloads;
  };

  const versionStates = async (id: string) => {
    const [versions] = await client.listSecretVersions({ parent: tenantSecret(id) });
    return Object.fromEntries(versions.map((v) => [v.name!.split('/').pop(), String(v.state)]));
  };

  const statusData = (result: JobResult) => {
    const plan = planFromJobResult(result, JOB);
    if (!('outcome' in plan)) throw new Error(`expected a report, got ${plan.skip}`);
    return buildStatus(plan.outcome, 1, new Date());
  };

  it('writes the default to the management cluster and no version of it to the tenant project', async () => {
    const configured = `${defaultSecret()}/versions/latest`;
    const run = await runJob(env('cls-d1', { PULL_SECRET_SECRET_VERSION: configured }));
    expect(run.code).toBe(EXIT_CODES.success);
    expect(await kubernetesBytes('cls-d1')).toBe(DEFAULT_TEXT);
    // The Secret names the default as the platform configured it, and the version it was read from.
    expect(await sourceAnnotations('cls-d1')).toEqual({ path: configured, version: '1' });

    // The tenant secret exists, ours, holding the claim and the place: no version at all.
    const [secret] = await client.getSecret({ name: tenantSecret('cls-d1') });
    expect(secret.labels).toMatchObject({ 'managed-by': 'hyperfleet', 'cluster-id': 'cls-d1' });
    expect(secret.annotations?.[CLAIM_ANNOTATIONS.execution]).toBe('pullsecret-job-cls-d1');
    expect(Object.values(secret.annotations ?? {})).toContain(
      `default/${ns('cls-d1')}/cls-d1-pull-secret`,
    );
    expect(await versionStates('cls-d1')).toEqual({});
    expect((await tenantPayloads()).some((p) => p.includes('platform-user'))).toBe(false);
    expect(
      sm.requests
        .list()
        .filter((r) => r.method === 'AddSecretVersion' && r.target.includes(`/${TENANT}/`)),
    ).toEqual([]);

    expect(run.result).toMatchObject({
      outcome: 'succeeded',
      pull_secret_source: 'platform-default',
      secret_manager: { secret_path: tenantSecret('cls-d1'), version: 'none', version_name: '' },
    });
    expect(run.result.message).toContain('not copied to the tenant project');
    // The bytes are never printed, in the result or any log line.
    expect(run.stdout + run.stderr).not.toContain(PLATFORM_PASSWORD);
  });

  it('says in the status data that the default is in use, and HyperShift still finds the Secret', async () => {
    const run = await runJob(env('cls-d2'));
    expect(run.code).toBe(EXIT_CODES.success);
    const status = statusData(run.result);
    expect(status.data).toMatchObject({
      pull_secret_source: 'platform-default',
      secret_path: tenantSecret('cls-d2'),
      namespace: ns('cls-d2'),
      pull_secret_name: 'cls-d2-pull-secret',
      management_cluster: 'default',
    });
    expect(status.data).not.toHaveProperty('secret_version');
    const available = status.conditions.find((c) => c.type === 'Available');
    expect(available).toMatchObject({ status: 'True', reason: 'PullSecretProvisioned' });
    expect(available?.message).toContain('platform default pull secret');
    expect(
      decideHyperShift({
        generation: 1,
        deleting: false,
        statuses: [
          {
            adapter: 'pullsecret',
            observed_generation: 1,
            conditions: status.conditions,
            data: status.data,
          } as Parameters<typeof decideHyperShift>[0]['statuses'][number],
        ],
        knownClusters: ['default'],
        defaultCluster: 'default',
      }),
    ).toEqual({
      kind: 'apply',
      placement: {
        managementCluster: 'default',
        namespace: ns('cls-d2'),
        pullSecretName: 'cls-d2-pull-secret',
      },
    });

    // A re-run of the same generation (a relaunch) writes nothing anywhere.
    kube.requests.clear();
    sm.requests.clear();
    const again = await runJob(
      env('cls-d2', { LAUNCH_ATTEMPT: '2', CLOUD_RUN_EXECUTION: 'pullsecret-job-cls-d2-b' }),
    );
    expect(again.result.kubernetes?.outcome).toBe('unchanged');
    expect(sm.requests.list().map((r) => r.method)).not.toContain('AddSecretVersion');
    // A newer generation with the same bytes only stamps the Secret with its generation.
    const newer = await runJob(
      env('cls-d2', { GENERATION: '2', CLOUD_RUN_EXECUTION: 'pullsecret-job-cls-d2-c' }),
    );
    expect(newer.result.kubernetes?.outcome).toBe('updated');
    expect(sm.requests.list().map((r) => r.method)).not.toContain('AddSecretVersion');
  });

  it('withdraws a copy an earlier version of the job left in the tenant project, keeping the customer own', async () => {
    // What main did before: the tenant secret holds the customer's earlier pull secret (v1, from
    // the spec) and then a copy of the platform default (v2).
    const customer = samplePullSecret('customer-user', 'customer-password');
    await client.createSecret({
      parent: `projects/${TENANT}`,
      secretId: 'hyperfleet-cls-d3-pull-secret',
      secret: {
        replication: { automatic: {} },
        labels: secretManagerLabels({ clusterId: 'cls-d3' }),
      },
    });
    for (const text of [customer, DEFAULT_TEXT])
      await client.addSecretVersion({
        parent: tenantSecret('cls-d3'),
        payload: { data: Buffer.from(text) },
      });

    const run = await runJob(env('cls-d3'));
    expect(run.code).toBe(EXIT_CODES.success);
    expect(await kubernetesBytes('cls-d3')).toBe(DEFAULT_TEXT);
    expect(await versionStates('cls-d3')).toEqual({ '1': 'ENABLED', '2': 'DESTROYED' });
    expect(run.result.secret_manager).toMatchObject({
      version: 'none',
      destroyed_versions: [`${tenantSecret('cls-d3')}/versions/2`],
    });
    expect((await tenantPayloads()).some((p) => p.includes('platform-user'))).toBe(false);
  });

  it('copies the default into the tenant project only with COPY_PLATFORM_DEFAULT_TO_TENANT=true', async () => {
    const run = await runJob(env('cls-d4', { COPY_PLATFORM_DEFAULT_TO_TENANT: 'true' }));
    expect(run.code).toBe(EXIT_CODES.success);
    expect(await kubernetesBytes('cls-d4')).toBe(DEFAULT_TEXT);
    const [current] = await client.accessSecretVersion({
      name: `${tenantSecret('cls-d4')}/versions/current`,
    });
    expect(Buffer.from(current.payload?.data ?? '').toString()).toBe(DEFAULT_TEXT);
    expect(run.result).toMatchObject({
      pull_secret_source: 'platform-default',
      secret_manager: { version: 'added' },
    });
    expect(statusData(run.result).data).toMatchObject({
      pull_secret_source: 'platform-default',
      secret_version: '1',
    });
    expect(await sourceAnnotations('cls-d4')).toEqual({
      path: `${tenantSecret('cls-d4')}/versions/current`,
      version: '1',
    });

    // The opt-in turned off: the copy is withdrawn, and first the alias that published it, so the
    // withdrawal never depends on whether Secret Manager would destroy an aliased version.
    const off = await runJob(
      env('cls-d4', { GENERATION: '2', CLOUD_RUN_EXECUTION: 'pullsecret-job-cls-d4-b' }),
    );
    expect(off.result.secret_manager).toMatchObject({
      version: 'none',
      destroyed_versions: [`${tenantSecret('cls-d4')}/versions/1`],
    });
    const [secret] = await client.getSecret({ name: tenantSecret('cls-d4') });
    expect(secret.versionAliases).toEqual({});
    expect(secret.annotations).not.toHaveProperty('hyperfleet.io-current-generation');
    expect(await versionStates('cls-d4')).toEqual({ '1': 'DESTROYED' });
    // Same bytes, now from the default: the Secret no longer names the withdrawn copy.
    expect(await sourceAnnotations('cls-d4')).toEqual({ path: defaultVersion, version: '1' });
  });
});
