// Issue 26, item 7: the places recorded in the Secret Manager secret's annotations are in the
// tenant's project, so the tenant can edit them. A recorded place is used only if it names a
// management cluster (DNS label), a namespace (DNS label) and a Secret (DNS subdomain): a `..`
// segment or any other name would reach another API path. Such an entry is ignored with a warning,
// left as it is, and never leads to a request, a write or a delete.
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { placeKey, type Place } from '../../../functions/pull-secret-job/places/place-record';
import { EXIT_CODES } from '../../../shared/job-result';
import { runJob, samplePullSecret } from '../../helpers/job';
import { coreApi } from '../../helpers/kubernetes';
import { secretManagerClient } from '../../helpers/secret-manager';

const ID = 'cls-r';
const NS = `clusters-${ID}`;
const NAME = `${ID}-pull-secret`;
const SECRET = `projects/demo-project/secrets/hyperfleet-${ID}-pull-secret`;
const TARGET = `/api/v1/namespaces/${NS}/secrets/${NAME}`;

/** Forged by the tenant, each with the key the job computes, so today's reader accepts them. */
const FORGED: Place[] = [
  { cluster: 'default', namespace: 'victim', name: '..' },
  { cluster: 'default', namespace: '..', name: 'victim' },
  { cluster: 'default', namespace: '..', name: '..' },
  { cluster: 'default', namespace: NS, name: 'Not_A_Name' },
  { cluster: 'default', namespace: 'kube-system.', name: NAME },
  { cluster: '..', namespace: NS, name: NAME },
];
const value = (p: Place) => `${p.cluster}/${p.namespace}/${p.name}`;

describe('pull secret job: recorded places are validated when read', () => {
  let sm: SecretManagerEmulator;
  let kube: KubeApiServerEmulator;
  let client: SecretManagerServiceClient;

  beforeAll(async () => {
    sm = await startSecretManagerEmulator();
    kube = await startKubeApiServerEmulator({ namespaces: [NS, 'victim'] });
    client = secretManagerClient(sm.endpoint);
  });
  afterAll(async () => {
    await client.close();
    await sm.stop();
    await kube.stop();
  });

  const env = (extra: Record<string, string>) => ({
    SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
    KUBECONFIG: kube.kubeconfigPath,
    GCP_PROJECT_ID: 'demo-project',
    CLUSTER_ID: ID,
    MANAGEMENT_NAMESPACE: NS,
    ...extra,
  });
  const annotations = async () => {
    const [secret] = await client.getSecret({ name: SECRET });
    return secret.annotations ?? {};
  };
  const forge = async () => {
    const [secret] = await client.getSecret({ name: SECRET });
    const forged = Object.fromEntries(FORGED.map((p) => [placeKey(p), value(p)]));
    await client.updateSecret({
      secret: {
        name: SECRET,
        annotations: { ...secret.annotations, ...forged },
        etag: secret.etag,
      },
      updateMask: { paths: ['annotations'] },
    });
  };
  const warned = (lines: Record<string, unknown>[]) =>
    lines.filter(
      (l) =>
        l.severity === 'WARNING' &&
        (l.metadata as { reason?: string } | undefined)?.reason === 'InvalidRecordedPlace',
    ) as { message: string }[];

  it('an apply neither reads, writes nor removes anything at a forged place', async () => {
    const first = await runJob(env({ GENERATION: '1', PULL_SECRET_DATA: samplePullSecret() }));
    expect(first.code).toBe(EXIT_CODES.success);
    await forge();

    kube.requests.clear();
    const run = await runJob(
      env({
        GENERATION: '2',
        CLOUD_RUN_EXECUTION: 'pullsecret-job-r-2',
        PULL_SECRET_DATA: samplePullSecret('rotated', 'rotated-password'),
      }),
    );
    expect(run.code).toBe(EXIT_CODES.success);
    expect(run.result.cleaned_placements ?? []).toEqual([]);
    for (const request of kube.requests.list()) expect(request.target).toBe(TARGET);
    const warnings = warned(run.lines);
    expect(warnings.length).toBeGreaterThan(0);
    for (const place of FORGED)
      expect(warnings.map((w) => w.message).join('\n')).toContain(JSON.stringify(value(place)));
    // Left as they are: ignored, not "cleaned" (forgotten as if nothing were there).
    expect(Object.values(await annotations())).toEqual(expect.arrayContaining(FORGED.map(value)));
  });

  it('a delete removes only the real place and leaves the forged ones alone', async () => {
    kube.requests.clear();
    const run = await runJob(
      env({
        OPERATION: 'delete',
        GENERATION: '3',
        CLOUD_RUN_EXECUTION: 'pullsecret-job-r-3',
        ON_DELETE: 'retain',
      }),
    );
    expect(run.code).toBe(EXIT_CODES.success);
    expect(run.result.kubernetes).toMatchObject({ namespace: NS, name: NAME, outcome: 'deleted' });
    expect(run.result.cleaned_placements ?? []).toEqual([]);
    for (const request of kube.requests.list()) expect(request.target).toBe(TARGET);
    expect(warned(run.lines).length).toBeGreaterThan(0);
    // The victim namespace is still there.
    await expect(coreApi(kube).readNamespace({ name: 'victim' })).resolves.toMatchObject({
      metadata: { name: 'victim' },
    });
  });
});
