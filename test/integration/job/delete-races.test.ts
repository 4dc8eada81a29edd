// A cluster deleted while its apply is still in flight, as real job processes against the Secret
// Manager, Kubernetes and HyperFleet API emulators. The emulators hold the apply's call at one
// point of its run (a `hold` fault rule) while the cluster is deleted in the API and the delete
// execution runs to the end; then the apply goes on. Whatever the point, nothing of the customer's
// pull secret is left: no enabled version in Secret Manager (the delete's tombstone, with its
// claim and an expiration, holds back the apply), no Secret on the management cluster.
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import type { FaultRuleInput } from '../../../emulators/common/fault-injector';
import { EXIT_CODES } from '../../../shared/job-result';
import { readySpec } from '../../helpers/hyperfleet';
import { runJob, samplePullSecret, type JobRun } from '../../helpers/job';
import { coreApi } from '../../helpers/kubernetes';
import { leftAfterDelete, secretManagerClient, tombstoneOf } from '../../helpers/secret-manager';
import { until } from '../../helpers/two-management-clusters';

const PROJECT = 'demo-project';
const secretOf = (id: string) => `projects/${PROJECT}/secrets/hyperfleet-${id}-pull-secret`;
const namespaceOf = (id: string) => `clusters-${id}`;
const clusterPath = (id: string) => `GET /api/hyperfleet/v1/clusters/${id}`;

/** Where the apply is held while the delete runs, and the rules that hold it there. */
interface HoldPoint {
  readonly name: string;
  readonly on: 'sm' | 'kube' | 'hyperfleet';
  /** Pass-through rules (no effect) let earlier calls of the same kind through first. */
  readonly rules: (id: string) => FaultRuleInput[];
  /** The Secret Manager versions the apply's run leaves, every one destroyed. */
  readonly versions: string[];
}

const HOLD_POINTS: readonly HoldPoint[] = [
  {
    name: 'its first cluster check (it reads the cluster once the delete was requested)',
    on: 'hyperfleet',
    rules: (id) => [{ match: clusterPath(id), exact: true, hold: true }],
    versions: [],
  },
  {
    name: 'its first write, the claim (CreateSecret meets the tombstone)',
    on: 'sm',
    rules: (id) => [{ match: 'CreateSecret', target: secretOf(id), hold: true }],
    versions: [],
  },
  {
    name: 'its version (added to the tombstone, then withdrawn)',
    on: 'sm',
    rules: (id) => [{ match: 'AddSecretVersion', target: secretOf(id), hold: true }],
    versions: ['1:DESTROYED'],
  },
  {
    name: 'its cluster check between the phases',
    on: 'hyperfleet',
    rules: (id) => [
      { match: clusterPath(id), exact: true },
      { match: clusterPath(id), exact: true, hold: true },
    ],
    versions: ['1:DESTROYED'],
  },
  {
    name: 'its Kubernetes write (the claim re-check after it withdraws the Secret)',
    on: 'kube',
    rules: (id) => [
      { match: `POST /api/v1/namespaces/${namespaceOf(id)}/secrets`, exact: true, hold: true },
    ],
    versions: ['1:DESTROYED'],
  },
  {
    name: 'its claim re-check after the Kubernetes write',
    on: 'sm',
    rules: (id) => [
      { match: 'GetSecret', target: secretOf(id) },
      { match: 'GetSecret', target: secretOf(id), hold: true },
    ],
    versions: ['1:DESTROYED'],
  },
];

describe('a cluster deleted during its apply leaves nothing behind (tombstone and cluster check)', () => {
  let sm: SecretManagerEmulator;
  let kube: KubeApiServerEmulator;
  let hyperfleet: HyperFleetApiEmulator;
  let client: SecretManagerServiceClient;

  beforeAll(async () => {
    sm = await startSecretManagerEmulator();
    kube = await startKubeApiServerEmulator({ namespaces: [] });
    hyperfleet = await startHyperFleetApiEmulator();
    client = secretManagerClient(sm.endpoint);
  });
  afterAll(async () => {
    await client.close();
    await sm.stop();
    await kube.stop();
    await hyperfleet.stop();
  });
  afterEach(() => {
    for (const emulator of [sm, kube, hyperfleet]) emulator.faults.clear();
  });

  const emulators = () => ({ sm, kube, hyperfleet });
  /** A cluster in the API with its pull secret in the spec, and its namespace on the management cluster. */
  const newCluster = async (id: string): Promise<string> => {
    hyperfleet.store.createCluster(
      { id, kind: 'Cluster', name: id, spec: readySpec(samplePullSecret(id, `${id}-password`)) },
      'test@hyperfleet.local',
    );
    await coreApi(kube).createNamespace({ body: { metadata: { name: namespaceOf(id) } } });
    return id;
  };
  /** DELETE in the API: deleted_time set, generation bumped; the delete's GENERATION. */
  const requestDeletion = (id: string): string => {
    const cluster = hyperfleet.store.deleteCluster(id, 'test@hyperfleet.local') as {
      generation: number;
    };
    return String(cluster.generation);
  };
  const env = (id: string, extra: Record<string, string> = {}) => ({
    SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
    KUBECONFIG: kube.kubeconfigPath,
    HYPERFLEET_API_BASE_URL: hyperfleet.baseUrl,
    GCP_PROJECT_ID: PROJECT,
    CLUSTER_ID: id,
    MANAGEMENT_NAMESPACE: namespaceOf(id),
    LAUNCH_ATTEMPT: '1',
    // A held call must not time out and be retried past its hold.
    GCP_API_TIMEOUT: '120s',
    HYPERFLEET_API_TIMEOUT: '120s',
    KUBERNETES_API_TIMEOUT: '120s',
    ...extra,
  });
  /** The first apply, as the adapter launches it at creation (generation 1). */
  const apply = (id: string, extra: Record<string, string> = {}) =>
    runJob(
      env(id, {
        PULL_SECRET_SOURCE: 'cluster-spec',
        GENERATION: '1',
        CLOUD_RUN_EXECUTION: `apply-${id}`,
        ...extra,
      }),
    );
  const deleteRun = (id: string, generation: string, extra: Record<string, string> = {}) =>
    runJob(
      env(id, {
        OPERATION: 'delete',
        GENERATION: generation,
        CLOUD_RUN_EXECUTION: `delete-${id}`,
        ...extra,
      }),
    );
  const kubernetesSecret = (id: string) =>
    coreApi(kube)
      .readNamespacedSecret({ namespace: namespaceOf(id), name: `${id}-pull-secret` })
      .then(
        () => 'present',
        () => 'absent',
      );
  const liveVersions = async (id: string) =>
    ((await tombstoneOf(client, secretOf(id)))?.versions ?? []).filter(
      (v) => !v.endsWith(':DESTROYED'),
    );

  /** Holds the apply at `point`, deletes the cluster and runs the delete to the end, lets the apply go. */
  const raceAt = async (point: HoldPoint, id: string) => {
    const emulator = emulators()[point.on];
    for (const rule of point.rules(id)) emulator.faults.add(rule);
    const held = emulator.faults.held();
    const applying = apply(id);
    await until(
      `the apply of ${id} to be held at ${point.name}`,
      () => emulator.faults.held() > held,
    );
    return { applying };
  };

  it.each(HOLD_POINTS.filter((_, i) => [1, 2, 4].includes(i)).map((p) => [p.name, p] as const))(
    'an apply held at %s while the cluster is deleted writes nothing that stays',
    async (_name, point) => {
      const id = await newCluster(`race-${HOLD_POINTS.indexOf(point)}`);
      const { applying } = await raceAt(point, id);
      const deleted = await deleteRun(id, requestDeletion(id));
      expect(deleted.code).toBe(EXIT_CODES.success);
      expect(deleted.result.reason).toBe('CleanupConfirmed');
      emulators()[point.on].faults.release();
      const late = await applying;

      expect(late.code).toBe(EXIT_CODES.success);
      expect(late.result).toMatchObject({ outcome: 'stood-aside', reason: 'SupersededExecution' });
      expect(await leftAfterDelete(client, secretOf(id))).toBe('tombstone');
      expect((await tombstoneOf(client, secretOf(id)))?.versions).toEqual(point.versions);
      expect(await kubernetesSecret(id)).toBe('absent');
      // Never DeleteSecret: the tombstone is what keeps the apply from creating the secret again.
      expect(sm.requests.list().filter((r) => r.method === 'DeleteSecret')).toEqual([]);
    },
    60_000,
  );

  it('a version whose AddSecretVersion answer was lost, landing after the delete listed the versions, is adopted, then withdrawn; no alias is left', async () => {
    const id = await newCluster('adopted');
    // The add is held before it is performed, then performed with its answer lost: the apply
    // adopts the version it finds (addVersionOnce, sync-secret-manager.ts) after the delete's tombstone listed none.
    sm.faults.add({
      match: 'AddSecretVersion',
      target: secretOf(id),
      hold: true,
      after: true,
      status: 'UNAVAILABLE',
    });
    const applying = apply(id);
    await until('the apply to be held at its AddSecretVersion', () => sm.faults.held() > 0);
    const deleted = await deleteRun(id, requestDeletion(id));
    expect(deleted.result.outcome).toBe('succeeded');
    sm.faults.release();
    const late = await applying;

    expect(late.result).toMatchObject({ outcome: 'stood-aside', reason: 'SupersededExecution' });
    expect(await liveVersions(id)).toEqual([]);
    expect(await leftAfterDelete(client, secretOf(id))).toBe('tombstone');
    const [secret] = await client.getSecret({ name: secretOf(id) });
    expect(secret.versionAliases ?? {}).toEqual({});
  }, 60_000);

  it('an apply that finds the cluster being deleted when it is about to publish never makes its version current', async () => {
    const id = await newCluster('unpublished');
    // Held at its second cluster check, the one before publishing (the first resolved the pull secret).
    hyperfleet.faults.add({ match: clusterPath(id), exact: true });
    hyperfleet.faults.add({ match: clusterPath(id), exact: true, hold: true });
    const applying = apply(id);
    await until('the apply to be held before publishing', () => hyperfleet.faults.held() > 0);
    // Its version is added, not yet current.
    expect(await liveVersions(id)).toEqual(['1:ENABLED']);
    const [held] = await client.getSecret({ name: secretOf(id) });
    expect(held.versionAliases ?? {}).toEqual({});
    requestDeletion(id);
    hyperfleet.faults.release();
    const late = await applying;

    expect(late.result).toMatchObject({ outcome: 'stood-aside', reason: 'SupersededExecution' });
    const [secret] = await client.getSecret({ name: secretOf(id) });
    expect(secret.versionAliases ?? {}).toEqual({});
    expect(await liveVersions(id)).toEqual([]);
    expect(await kubernetesSecret(id)).toBe('absent');
  }, 60_000);

  it('a delete of a published secret removes the `current` alias before it destroys the versions', async () => {
    const id = await newCluster('aliased');
    expect((await apply(id)).result.outcome).toBe('succeeded');
    const [published] = await client.getSecret({ name: secretOf(id) });
    expect(Object.keys(published.versionAliases ?? {})).toEqual(['current']);
    const deleted = await deleteRun(id, requestDeletion(id));
    expect(deleted.result.outcome).toBe('succeeded');
    const [tombstone] = await client.getSecret({ name: secretOf(id) });
    expect(tombstone.versionAliases ?? {}).toEqual({});
    expect(await leftAfterDelete(client, secretOf(id))).toBe('tombstone');
    const calls = sm.requests
      .list()
      .filter(
        (r) =>
          r.target.startsWith(secretOf(id)) &&
          ['UpdateSecret', 'DestroySecretVersion'].includes(r.method),
      )
      .map((r) => r.method);
    // The ttl, then the alias removed, then the destroy.
    expect(calls.slice(-3)).toEqual(['UpdateSecret', 'UpdateSecret', 'DestroySecretVersion']);
  }, 60_000);

  it('6 of 6 clusters deleted during their first apply leave nothing in Secret Manager or on the management cluster', async () => {
    const ids = await Promise.all(HOLD_POINTS.map((_, i) => newCluster(`six-${i}`)));
    const runs: Promise<JobRun>[] = [];
    for (const [i, point] of HOLD_POINTS.entries())
      runs.push((await raceAt(point, ids[i]!)).applying);
    // Every apply is held somewhere in its run; the six deletes run one after another.
    for (const id of ids) {
      const deleted = await deleteRun(id, requestDeletion(id));
      expect([id, deleted.result.outcome]).toEqual([id, 'succeeded']);
    }
    for (const emulator of [sm, kube, hyperfleet]) emulator.faults.release();
    const late = await Promise.all(runs);

    expect(late.map((run) => [run.code, run.result.reason])).toEqual(
      ids.map(() => [EXIT_CODES.success, 'SupersededExecution']),
    );
    for (const [i, id] of ids.entries()) {
      expect([id, await liveVersions(id)]).toEqual([id, []]);
      expect([id, await leftAfterDelete(client, secretOf(id))]).toEqual([id, 'tombstone']);
      expect([id, (await tombstoneOf(client, secretOf(id)))?.versions]).toEqual([
        id,
        HOLD_POINTS[i]!.versions,
      ]);
      expect([id, await kubernetesSecret(id)]).toEqual([id, 'absent']);
    }
  }, 120_000);

  it('a delete that finds nothing leaves the tombstone: a later apply stands aside, with or without the API', async () => {
    const id = await newCluster('delete-first');
    const deleted = await deleteRun(id, requestDeletion(id));
    expect(deleted.result).toMatchObject({
      outcome: 'succeeded',
      secret_manager: { secret: 'absent', destroyed_versions: [] },
    });
    expect(deleted.result.message).toContain('tombstone');
    const tombstone = await tombstoneOf(client, secretOf(id));
    expect(tombstone).toMatchObject({ versions: [], claim: 'delete@2' });
    expect(tombstone?.expiresInSeconds).toBeGreaterThan(24 * 3600);

    // Without the HyperFleet API (no cluster check), the tombstone's claim alone stops it.
    const blind = await runJob({
      ...env(id, {
        GENERATION: '1',
        CLOUD_RUN_EXECUTION: `apply-${id}`,
        PULL_SECRET_DATA: samplePullSecret(),
      }),
      HYPERFLEET_API_BASE_URL: undefined,
    });
    expect(blind.result).toMatchObject({
      outcome: 'stood-aside',
      reason: 'SupersededExecution',
      phases: [],
      claim_holder: { operation: 'delete', generation: 2 },
    });
    // A direct run (no GENERATION, no claim, no API) adds a version but may not publish it over
    // the delete's claim: it withdraws what it added.
    const direct = await runJob({
      ...env(id, { CLOUD_RUN_EXECUTION: `direct-${id}`, PULL_SECRET_DATA: samplePullSecret() }),
      LAUNCH_ATTEMPT: undefined,
      HYPERFLEET_API_BASE_URL: undefined,
    });
    expect(direct.result).toMatchObject({ outcome: 'stood-aside', reason: 'SupersededExecution' });
    expect(await liveVersions(id)).toEqual([]);
    // With the API, the cluster check stops it before it even reads Secret Manager.
    const checked = await apply(id, { CLOUD_RUN_EXECUTION: `apply-${id}-2` });
    expect(checked.result).toMatchObject({ outcome: 'stood-aside', reason: 'SupersededExecution' });
    expect(checked.result.message).toMatch(
      /^Superseded execution: the cluster is being deleted \(deleted_time .+\), so this execution wrote nothing\.$/,
    );
    // The direct run's version, destroyed: no bytes are left.
    expect(await tombstoneOf(client, secretOf(id))).toMatchObject({
      versions: ['1:DESTROYED'],
      claim: 'delete@2',
    });
    expect(await kubernetesSecret(id)).toBe('absent');
  }, 60_000);

  it('ON_DELETE=retain keeps the versions disabled and the delete claim, which holds back a lagging apply', async () => {
    const id = await newCluster('retained');
    expect((await apply(id)).result.outcome).toBe('succeeded');
    const deleted = await deleteRun(id, requestDeletion(id), { ON_DELETE: 'retain' });
    expect(deleted.result).toMatchObject({ secret_manager: { secret: 'retained' } });
    // A relaunch of the first apply that never read the cluster (no API): the claim stops it.
    const lagging = await runJob({
      ...env(id, {
        GENERATION: '1',
        LAUNCH_ATTEMPT: '2',
        CLOUD_RUN_EXECUTION: `apply-${id}-relaunch`,
        PULL_SECRET_DATA: samplePullSecret('other', 'other-password'),
      }),
      HYPERFLEET_API_BASE_URL: undefined,
    });
    expect(lagging.result).toMatchObject({
      reason: 'SupersededExecution',
      claim_holder: { operation: 'delete', generation: 2 },
    });
    const retained = await tombstoneOf(client, secretOf(id));
    expect(retained).toMatchObject({ versions: ['1:DISABLED'], claim: 'delete@2' });
    // Retained means kept: no expiration on a secret that still holds versions.
    expect(retained?.expiresInSeconds).toBeUndefined();
    expect(await kubernetesSecret(id)).toBe('absent');
  }, 60_000);

  it('an apply of a cluster already being deleted, gone, or of an older generation, stops before its first write', async () => {
    const deleting = await newCluster('check-deleting');
    requestDeletion(deleting);
    const stale = await newCluster('check-newer');
    hyperfleet.store.patchCluster(
      stale,
      { spec: readySpec(samplePullSecret('rotated', 'rotated-password')) },
      'test@hyperfleet.local',
    );
    sm.requests.clear();

    const first = await apply(deleting);
    expect(first.result).toMatchObject({
      outcome: 'stood-aside',
      reason: 'SupersededExecution',
      phases: [],
    });
    expect(first.result.message).toContain('the cluster is being deleted');
    const second = await apply(stale);
    expect(second.result).toMatchObject({
      outcome: 'stood-aside',
      reason: 'SupersededExecution',
      phases: [],
      message:
        "Superseded execution: generation 2 is newer than this execution's 1, so this execution wrote nothing.",
    });
    // Deleted and finalized (gone from the API): superseded as well, not a permanent failure.
    const gone = await newCluster('check-gone');
    hyperfleet.store.forceDelete(gone, 'finalized');
    const third = await apply(gone);
    expect(third.result).toMatchObject({
      outcome: 'stood-aside',
      reason: 'SupersededExecution',
      phases: [],
    });
    expect(third.result.message).toContain('the cluster no longer exists in the HyperFleet API');
    // Not a single Secret Manager call: the check comes before the claim.
    expect(sm.requests.list()).toEqual([]);
    for (const id of [deleting, stale, gone]) {
      expect(await tombstoneOf(client, secretOf(id))).toBeUndefined();
      expect(await kubernetesSecret(id)).toBe('absent');
    }
  }, 60_000);
});
