// Publishing in Secret Manager cannot go backwards (docs/design/job-protocol.md, "Secret Manager
// never goes back"): real job processes against the Secret Manager and Kubernetes emulators. The
// races are forced with the emulator's hold rule: the older execution's call waits until the test
// releases it, after the newer execution has run to the end; nothing depends on timing.
import { status } from '@grpc/grpc-js';
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { answeredAs } from '../../../shared/gcp/secret-manager-names';
import { EXIT_CODES } from '../../../shared/job-result';
import { runJob, samplePullSecret } from '../../helpers/job';
import { coreApi } from '../../helpers/kubernetes';
import { secretManagerClient } from '../../helpers/secret-manager';
import { waitFor } from '../../helpers/wait-for';

const NS = 'clusters-cls-pub';
const NAME = 'cls-pub-pull-secret';
const SECRET = 'projects/demo-project/secrets/hyperfleet-cls-pub-pull-secret';
const version = (n: number) => `${SECRET}/versions/${n}`;
const bytes = {
  A: samplePullSecret('user-a', 'password-a'),
  B: samplePullSecret('user-b', 'password-b'),
  C: samplePullSecret('user-c', 'password-c'),
};

describe('pull secret job, publishing in Secret Manager (real processes, held calls)', () => {
  let sm: SecretManagerEmulator;
  let kube: KubeApiServerEmulator;
  let client: SecretManagerServiceClient;

  beforeEach(async () => {
    sm = await startSecretManagerEmulator();
    kube = await startKubeApiServerEmulator({ namespaces: [NS] });
    client = secretManagerClient(sm.endpoint);
  });
  afterEach(async () => {
    sm.faults.release();
    await client.close();
    await sm.stop();
    await kube.stop();
  });

  /** One execution as the adapter launches it. */
  const run = (generation: number, data: string, attempt = 1, extra: Record<string, string> = {}) =>
    runJob({
      SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
      KUBECONFIG: kube.kubeconfigPath,
      GCP_PROJECT_ID: 'demo-project',
      CLUSTER_ID: 'cls-pub',
      MANAGEMENT_NAMESPACE: NS,
      PULL_SECRET_DATA: data,
      GENERATION: String(generation),
      LAUNCH_ATTEMPT: String(attempt),
      CLOUD_RUN_EXECUTION: `pull-secret-g${generation}-a${attempt}`,
      ...extra,
    });
  const calls = () => sm.requests.list().map((r) => r.method);
  const states = async () => {
    const [versions] = await client.listSecretVersions({ parent: SECRET });
    return versions.map((v) => `${v.name?.split('/').pop()}:${v.state}`);
  };
  /**
   * What a reader of `current` gets: the version's name and bytes. The service names the version
   * with the project number; put in the form the job names it (the request's) to compare.
   */
  const current = async () => {
    const asked = `${SECRET}/versions/current`;
    const [read] = await client.accessSecretVersion({ name: asked });
    return { name: answeredAs(asked, read.name ?? ''), data: read.payload?.data?.toString() };
  };
  const kubernetesSecret = async () => {
    const secret = await coreApi(kube).readNamespacedSecret({ namespace: NS, name: NAME });
    return {
      path: secret.metadata?.annotations?.['hyperfleet.io/gcp-secret-path'],
      version: secret.metadata?.annotations?.['hyperfleet.io/gcp-secret-version'],
      generation: secret.metadata?.annotations?.['hyperfleet.io/generation'],
      data: Buffer.from(secret.data?.['.dockerconfigjson'] ?? '', 'base64').toString(),
    };
  };
  const codeOf = async (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: { code?: number }) => error.code,
    );

  it('makes the calls the bench counts: first 5, unchanged 4, changed 8', async () => {
    expect((await run(1, bytes.A)).code).toBe(EXIT_CODES.success);
    expect(calls()).toEqual([
      'GetSecret',
      'CreateSecret', // with the claim
      'AddSecretVersion',
      'UpdateSecret', // the publication, on CreateSecret's etag
      'GetSecret', // the read after the Kubernetes write
    ]);
    sm.requests.clear();
    expect((await run(1, bytes.A, 2)).result.secret_manager?.version).toBe('unchanged');
    expect(calls()).toEqual(['GetSecret', 'UpdateSecret', 'AccessSecretVersion', 'GetSecret']);
    sm.requests.clear();
    expect((await run(2, bytes.B)).result.secret_manager?.version_name).toBe(version(2));
    expect(calls()).toEqual([
      'GetSecret',
      'UpdateSecret', // the claim
      'AccessSecretVersion', // `current`
      'AddSecretVersion',
      'UpdateSecret', // the publication, on the claim's etag
      'ListSecretVersions',
      'DestroySecretVersion',
      'GetSecret',
    ]);
    expect(await current()).toEqual({ name: version(2), data: bytes.B });
  }, 60_000);

  it('a stalled older generation never moves `current` back: it withdraws its own version and ends superseded', async () => {
    expect((await run(1, bytes.A)).code).toBe(EXIT_CODES.success);
    // Generation 2 claims, then its AddSecretVersion is held...
    sm.faults.add({ match: 'AddSecretVersion', target: SECRET, hold: true });
    const lagging = run(2, bytes.B);
    await waitFor('generation 2 to send AddSecretVersion', () => sm.faults.held() === 1);
    // ...while generation 3 claims, adds version 2, publishes it, writes Kubernetes and reports.
    const newer = await run(3, bytes.C);
    expect(newer.code).toBe(EXIT_CODES.success);
    expect(newer.result.secret_manager).toMatchObject({
      version: 'added',
      version_name: version(2),
      destroyed_versions: [version(1)],
    });
    // Generation 2 resumes: its version 3 lands, its publication loses, it withdraws version 3.
    expect(sm.faults.release()).toBe(1);
    const late = await lagging;
    expect(late.code).toBe(EXIT_CODES.success);
    expect(late.result).toMatchObject({
      outcome: 'stood-aside',
      reason: 'SupersededExecution',
      claim_holder: { generation: 3, execution: 'pull-secret-g3-a1' },
      secret_manager: { version_name: version(3), destroyed_versions: [version(3)] },
    });
    expect(late.result.kubernetes).toBeUndefined();

    // Readers of `current` get generation 3's bytes, and the version generation 3 named exists.
    expect(await current()).toEqual({ name: version(2), data: bytes.C });
    expect(await states()).toEqual(['3:DESTROYED', '2:ENABLED', '1:DESTROYED']);
    expect(await kubernetesSecret()).toEqual({
      path: `${SECRET}/versions/current`,
      version: '2',
      generation: '3',
      data: bytes.C,
    });
    const [secret] = await client.getSecret({ name: SECRET });
    expect(secret.annotations?.['hyperfleet.io-current-generation']).toBe('3');
    // `latest` names generation 2's withdrawn version: its readers get an error, never B.
    expect(await codeOf(client.accessSecretVersion({ name: `${SECRET}/versions/latest` }))).toBe(
      status.FAILED_PRECONDITION,
    );
  }, 60_000);

  // Found by the chaos run (test/faults/chaos.test.ts, seed 6): the lagging generation's add lands
  // with its answer lost, so it adopts the version it finds with its bytes; losing the publication,
  // it used to keep an adopted version (it might be another execution's), enabled for good.
  it('a stalled older generation whose AddSecretVersion answer was lost withdraws the version it adopted once a newer generation has published', async () => {
    expect((await run(1, bytes.A)).code).toBe(EXIT_CODES.success);
    sm.faults.add({
      match: 'AddSecretVersion',
      target: SECRET,
      hold: true,
      after: true,
      status: 'UNAVAILABLE',
    });
    const lagging = run(2, bytes.B, 1, { GCP_API_TIMEOUT: '60s' });
    await waitFor('generation 2 to send AddSecretVersion', () => sm.faults.held() === 1);
    const newer = await run(3, bytes.C);
    expect(newer.result.secret_manager).toMatchObject({ version_name: version(2) });
    sm.faults.release();
    const late = await lagging;
    expect(late.result).toMatchObject({
      outcome: 'stood-aside',
      reason: 'SupersededExecution',
      secret_manager: { version_name: version(3), destroyed_versions: [version(3)] },
    });
    expect(await current()).toEqual({ name: version(2), data: bytes.C });
    expect(await states()).toEqual(['3:DESTROYED', '2:ENABLED', '1:DESTROYED']);
    expect(await codeOf(client.accessSecretVersion({ name: `${SECRET}/versions/latest` }))).toBe(
      status.FAILED_PRECONDITION,
    );
  }, 60_000);

  it('a newer generation with nothing to publish (its bytes are current) still wins: the claim orders them', async () => {
    expect((await run(1, bytes.A)).code).toBe(EXIT_CODES.success);
    sm.faults.add({ match: 'AddSecretVersion', target: SECRET, hold: true });
    const lagging = run(2, bytes.B);
    await waitFor('generation 2 to send AddSecretVersion', () => sm.faults.held() === 1);
    // Generation 3 reverts to A: unchanged against `current`, it publishes nothing.
    const newer = await run(3, bytes.A);
    expect(newer.result.secret_manager).toMatchObject({
      version: 'unchanged',
      version_name: version(1),
    });
    sm.faults.release();
    const late = await lagging;
    // The published generation is still 1, older than 2: only the claim stops generation 2.
    expect(late.result).toMatchObject({ outcome: 'stood-aside', reason: 'SupersededExecution' });
    expect(await current()).toEqual({ name: version(1), data: bytes.A });
    expect(await states()).toEqual(['2:DESTROYED', '1:ENABLED']);
    expect(await kubernetesSecret()).toEqual({
      path: `${SECRET}/versions/current`,
      version: '1',
      generation: '3',
      data: bytes.A,
    });
  }, 60_000);

  it("a lagging run's retention never destroys the version a newer generation made current", async () => {
    expect((await run(1, bytes.A)).code).toBe(EXIT_CODES.success);
    // Generation 2 publishes version 2; its retention's ListSecretVersions is held...
    sm.faults.add({ match: 'ListSecretVersions', target: SECRET, hold: true });
    const lagging = run(2, bytes.B);
    await waitFor('generation 2 to list versions', () => sm.faults.held() === 1);
    // ...while generation 3 publishes version 3 and reports it...
    const newer = await run(3, bytes.C);
    expect(newer.result.secret_manager?.version_name).toBe(version(3));
    // ...and generation 4 adds version 4, its publication held (its claim's UpdateSecret goes through).
    sm.faults.add({ match: 'UpdateSecret', target: SECRET, delayMs: 0 });
    sm.faults.add({ match: 'UpdateSecret', target: SECRET, hold: true });
    const newest = run(4, samplePullSecret('user-d', 'password-d'));
    await waitFor('generation 4 to publish', () => sm.faults.held('UpdateSecret') === 1);
    // Generation 2's retention now sees versions 4 and 3 and its own 2 no longer aliased: it
    // destroys only what is older than its own version, so 3 (current, named by 3's status) stays.
    expect(sm.faults.release('ListSecretVersions')).toBe(1);
    const late = await lagging;
    expect(late.result).toMatchObject({ outcome: 'stood-aside', reason: 'SupersededExecution' });
    expect(await current()).toEqual({ name: version(3), data: bytes.C });
    expect(await kubernetesSecret()).toMatchObject({ version: '3', generation: '3' });
    sm.faults.release();
    expect((await newest).result.secret_manager?.version_name).toBe(version(4));
    expect(await states()).toEqual(['4:ENABLED', '3:DESTROYED', '2:DESTROYED', '1:DESTROYED']);
  }, 60_000);

  it('a publication applied with its answer lost reads back as published: one version, nothing withdrawn', async () => {
    expect((await run(1, bytes.A)).code).toBe(EXIT_CODES.success);
    // The claim's UpdateSecret goes through; the publication's is applied, then answered UNAVAILABLE.
    sm.faults.add({ match: 'UpdateSecret', target: SECRET, delayMs: 0 });
    sm.faults.add({ match: 'UpdateSecret', target: SECRET, status: 'UNAVAILABLE', after: true });
    const changed = await run(2, bytes.B);
    expect(changed.code).toBe(EXIT_CODES.success);
    expect(changed.result.secret_manager).toMatchObject({
      version_name: version(2),
      destroyed_versions: [version(1)],
    });
    expect(await current()).toEqual({ name: version(2), data: bytes.B });
    expect(await states()).toEqual(['2:ENABLED', '1:DESTROYED']);
  }, 60_000);

  it('a secret published before the alias existed gets `current` at its next run, with no new version', async () => {
    // As an earlier job left it: our labels, the bytes in version 1, no alias.
    await client.createSecret({
      parent: 'projects/demo-project',
      secretId: 'hyperfleet-cls-pub-pull-secret',
      secret: {
        replication: { automatic: {} },
        labels: { 'managed-by': 'hyperfleet', adapter: 'pullsecret', 'cluster-id': 'cls-pub' },
      },
    });
    await client.addSecretVersion({ parent: SECRET, payload: { data: Buffer.from(bytes.A) } });
    sm.requests.clear();
    const upgraded = await run(1, bytes.A);
    expect(upgraded.result.secret_manager).toMatchObject({
      version: 'unchanged',
      version_name: version(1),
    });
    expect(sm.requests.list().find((r) => r.method === 'AccessSecretVersion')?.target).toBe(
      `${SECRET}/versions/latest`,
    );
    expect(calls()).not.toContain('AddSecretVersion');
    expect(await current()).toEqual({ name: version(1), data: bytes.A });
  }, 60_000);

  it('retention keeps every version an alias names, and the one just published', async () => {
    expect((await run(1, bytes.A)).code).toBe(EXIT_CODES.success);
    // A customer pins version 1 under an alias of their own.
    const [secret] = await client.getSecret({ name: SECRET });
    await client.updateSecret({
      secret: { name: SECRET, versionAliases: { ...secret.versionAliases, pinned: 1 } },
      updateMask: { paths: ['version_aliases'] },
    });
    expect((await run(2, bytes.B)).result.secret_manager?.destroyed_versions).toEqual([]);
    expect((await run(3, bytes.C)).result.secret_manager?.destroyed_versions).toEqual([version(2)]);
    expect(await states()).toEqual(['3:ENABLED', '2:DESTROYED', '1:ENABLED']);
    const [after] = await client.getSecret({ name: SECRET });
    const aliases = Object.entries(after.versionAliases ?? {}).map(([k, v]) => `${k}=${String(v)}`);
    expect(aliases.sort()).toEqual(['current=3', 'pinned=1']);
  }, 60_000);
});
