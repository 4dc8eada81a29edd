// The job across two management clusters (two Kubernetes emulators) and the Secret Manager
// emulator, run as the real CLI process: choosing the cluster, refusing an unknown one before any
// write, moving the Secret between clusters and namespaces, and cleaning every place it wrote.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import { writeKubeconfig } from '../../../emulators/kube-apiserver/kubeconfig';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { placesFromAnnotations } from '../../../functions/pull-secret-job/places/place-record';
import { googleClientOptions } from '../../../shared/gcp/client-options';
import { EXIT_CODES } from '../../../shared/job-result';
import { runJob, samplePullSecret } from '../../helpers/job';
import { leftAfterDelete } from '../../helpers/secret-manager';
import { coreApi, dockerConfig, k8s } from '../../helpers/kubernetes';
import { writeCombinedKubeconfig } from '../../helpers/two-management-clusters';

const PROJECT = 'demo-project';
const CLUSTER = 'cls-1';
const NAME = 'cls-1-pull-secret';
const SECRET = `projects/${PROJECT}/secrets/hyperfleet-${CLUSTER}-pull-secret`;

describe('pull secret job across management clusters (two Kubernetes emulators)', () => {
  let sm: SecretManagerEmulator;
  let mgmt1: KubeApiServerEmulator;
  let mgmt2: KubeApiServerEmulator;
  let dir: string;
  let clusters: string;
  let secretManager: SecretManagerServiceClient;
  let generation: number;

  beforeAll(async () => {
    sm = await startSecretManagerEmulator();
    mgmt1 = await startKubeApiServerEmulator({ namespaces: ['clusters-cls-1'] });
    mgmt2 = await startKubeApiServerEmulator({ namespaces: ['clusters-cls-1'] });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'multi-cluster-'));
    const kubeconfig = path.join(dir, 'kubeconfig');
    writeCombinedKubeconfig(kubeconfig, { 'mgmt-1': mgmt1, 'mgmt-2': mgmt2 });
    clusters = JSON.stringify({
      'mgmt-1': { kubeconfig, context: 'mgmt-1' },
      'mgmt-2': { kubeconfig, context: 'mgmt-2' },
    });
    secretManager = new SecretManagerServiceClient(googleClientOptions(sm.endpoint, PROJECT));
  });
  afterAll(async () => {
    await secretManager.close();
    await sm.stop();
    await mgmt1.stop();
    await mgmt2.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    generation = 0;
    await Promise.all(
      [mgmt1, mgmt2].flatMap((kube) =>
        ['clusters-cls-1'].map((namespace) =>
          coreApi(kube)
            .deleteNamespacedSecret({ namespace, name: NAME })
            .catch(() => undefined),
        ),
      ),
    );
    await secretManager.deleteSecret({ name: SECRET }).catch(() => undefined);
    mgmt1.requests.clear();
    mgmt2.requests.clear();
    mgmt1.faults.clear();
    mgmt2.faults.clear();
  });

  /** One execution as the adapter launches it: the next generation, on `cluster`/`namespace`. */
  const run = (
    cluster: string | undefined,
    namespace: string,
    extra: Record<string, string> = {},
  ) => {
    generation += extra.OPERATION === 'delete' ? 0 : 1;
    return runJob({
      SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
      GCP_PROJECT_ID: PROJECT,
      CLUSTER_ID: CLUSTER,
      GENERATION: String(Math.max(generation, 1)),
      LAUNCH_ATTEMPT: '1',
      CLOUD_RUN_EXECUTION: `pullsecret-job-${generation}${extra.OPERATION ?? ''}${extra.LAUNCH_ATTEMPT ?? ''}`,
      MANAGEMENT_CLUSTERS: clusters,
      DEFAULT_MANAGEMENT_CLUSTER: 'mgmt-1',
      MANAGEMENT_NAMESPACE: namespace,
      ...(cluster ? { MANAGEMENT_CLUSTER: cluster } : {}),
      PULL_SECRET_DATA: samplePullSecret(),
      ...extra,
    });
  };
  const secretIn = (kube: KubeApiServerEmulator, namespace: string) =>
    coreApi(kube)
      .readNamespacedSecret({ namespace, name: NAME })
      .catch(() => undefined);
  const places = async () => {
    const [secret] = await secretManager.getSecret({ name: SECRET });
    return placesFromAnnotations(secret.annotations ?? {});
  };
  const everywhere = async () => {
    const found: string[] = [];
    for (const [name, kube] of [
      ['mgmt-1', mgmt1],
      ['mgmt-2', mgmt2],
    ] as const)
      for (const namespace of ['clusters-cls-1'])
        if (await secretIn(kube, namespace)) found.push(`${name}/${namespace}`);
    return found;
  };

  it('writes to the management cluster the execution names (a kubeconfig context), and records it', async () => {
    const result = await run('mgmt-2', 'clusters-cls-1');
    expect(result.code).toBe(EXIT_CODES.success);
    expect(result.result.kubernetes).toMatchObject({
      management_cluster: 'mgmt-2',
      namespace: 'clusters-cls-1',
      name: NAME,
      outcome: 'created',
    });
    expect(result.result.message).toContain('on management cluster mgmt-2');
    expect(mgmt1.requests.list()).toEqual([]);
    expect(await everywhere()).toEqual(['mgmt-2/clusters-cls-1']);
    expect(await places()).toEqual([
      { cluster: 'mgmt-2', namespace: 'clusters-cls-1', name: NAME },
    ]);
  });

  it('uses DEFAULT_MANAGEMENT_CLUSTER when the execution names none', async () => {
    const result = await run(undefined, 'clusters-cls-1');
    expect(result.code).toBe(EXIT_CODES.success);
    expect(result.result.kubernetes?.management_cluster).toBe('mgmt-1');
    expect(await everywhere()).toEqual(['mgmt-1/clusters-cls-1']);
  });

  it('an unknown management cluster fails permanently and writes nothing anywhere', async () => {
    const result = await run('mgmt-9', 'clusters-cls-1');
    expect(result.code).toBe(EXIT_CODES.permanent);
    expect(result.result).toMatchObject({
      outcome: 'failed',
      reason: 'UnknownManagementCluster',
      failure_kind: 'permanent',
      phases: [],
    });
    expect(result.result.message).toContain('"mgmt-9"');
    expect(result.result.message).toContain('known: mgmt-1, mgmt-2');
    expect(result.result.message).toContain('nothing was written');
    // Checked before Secret Manager: no secret, no claim; no Kubernetes call on either cluster.
    await expect(secretManager.getSecret({ name: SECRET })).rejects.toMatchObject({ code: 5 });
    expect(mgmt1.requests.list()).toEqual([]);
    expect(mgmt2.requests.list()).toEqual([]);
  });

  it('a delete naming an unknown management cluster still cleans the recorded places and leaves the tombstone', async () => {
    expect((await run('mgmt-1', 'clusters-cls-1')).code).toBe(EXIT_CODES.success);
    // The placement now names a cluster the job does not know: nothing was ever written there.
    const deleted = await run('mgmt-9', 'clusters-cls-1', { OPERATION: 'delete' });
    expect(deleted.code).toBe(EXIT_CODES.success);
    expect(deleted.result).toMatchObject({
      outcome: 'succeeded',
      reason: 'CleanupConfirmed',
      cleaned_placements: [
        {
          management_cluster: 'mgmt-1',
          namespace: 'clusters-cls-1',
          name: NAME,
          outcome: 'deleted',
        },
      ],
      secret_manager: { secret: 'deleted' },
    });
    expect(deleted.result.kubernetes).toBeUndefined();
    expect(mgmt2.requests.list()).toEqual([]);
    expect(await everywhere()).toEqual([]);
    expect(await leftAfterDelete(secretManager, SECRET)).toBe('tombstone');
  });

  it('a delete that keeps conflicting fails transient and keeps our Secret recorded, and a rerun removes it', async () => {
    expect((await run('mgmt-1', 'clusters-cls-1')).code).toBe(EXIT_CODES.success);
    // Every DELETE of that Secret answers 409 (someone keeps changing it): the 6 tries all conflict.
    mgmt1.faults.add({
      match: `DELETE /api/v1/namespaces/clusters-cls-1/secrets/${NAME}`,
      count: 6,
      status: 409,
    });
    const failed = await run('mgmt-1', 'clusters-cls-1', { OPERATION: 'delete' });
    expect(failed.code).toBe(EXIT_CODES.transient);
    expect(failed.result).toMatchObject({
      outcome: 'failed',
      failure_kind: 'transient',
      reason: 'KubernetesConflict',
    });
    expect(await everywhere()).toEqual(['mgmt-1/clusters-cls-1']);
    expect(await places()).toEqual([
      { cluster: 'mgmt-1', namespace: 'clusters-cls-1', name: NAME },
    ]);

    const rerun = await run('mgmt-1', 'clusters-cls-1', {
      OPERATION: 'delete',
      LAUNCH_ATTEMPT: '2',
    });
    expect(rerun.code).toBe(EXIT_CODES.success);
    expect(rerun.result.kubernetes?.outcome).toBe('deleted');
    expect(await everywhere()).toEqual([]);
    expect(await leftAfterDelete(secretManager, SECRET)).toBe('tombstone');
  });

  it('an apply that a delete overtakes while it waits for its namespace removes the Secret it then writes', async () => {
    // The cluster's namespace (the only one its pull secret may go to) does not exist yet.
    const late = 'clusters-cls-1';
    await coreApi(mgmt1).deleteNamespace({ name: late });
    const calls = () =>
      mgmt1.requests.list().filter((r) => r.method === 'POST' && r.outcome === 404).length;
    // The apply claims, records mgmt-1/clusters-cls-1, then waits for the namespace to appear.
    const applying = run('mgmt-1', late, { KUBERNETES_NAMESPACE_WAIT: '60s' });
    while (calls() < 1) await new Promise((r) => setTimeout(r, 20));
    expect(await places()).toEqual([{ cluster: 'mgmt-1', namespace: late, name: NAME }]);
    // A newer delete takes the claim, finds nothing there, drops the record, leaves the tombstone.
    const deleted = await run('mgmt-1', late, { OPERATION: 'delete' });
    expect(deleted.code).toBe(EXIT_CODES.success);
    expect(await leftAfterDelete(secretManager, SECRET)).toBe('tombstone');
    // The namespace appears: the apply writes, finds the work taken over, and removes its write.
    await coreApi(mgmt1).createNamespace({ body: { metadata: { name: late } } });
    const applied = await applying;
    expect(applied.code).toBe(EXIT_CODES.success);
    expect(applied.result).toMatchObject({
      outcome: 'stood-aside',
      reason: 'SupersededExecution',
      kubernetes: { management_cluster: 'mgmt-1', namespace: late, outcome: 'created' },
      cleaned_placements: [
        { management_cluster: 'mgmt-1', namespace: late, name: NAME, outcome: 'deleted' },
      ],
    });
    expect(await secretIn(mgmt1, late)).toBeUndefined();
    expect(await leftAfterDelete(secretManager, SECRET)).toBe('tombstone');
  });

  it('a move (mgmt-1/clusters-cls-1 to mgmt-2/clusters-cls-1) leaves exactly one Secret, in the new place, and updates the record', async () => {
    expect((await run('mgmt-1', 'clusters-cls-1')).code).toBe(EXIT_CODES.success);
    expect(await everywhere()).toEqual(['mgmt-1/clusters-cls-1']);

    const moved = await run('mgmt-2', 'clusters-cls-1');
    expect(moved.code).toBe(EXIT_CODES.success);
    expect(moved.result.kubernetes).toMatchObject({
      management_cluster: 'mgmt-2',
      namespace: 'clusters-cls-1',
      outcome: 'created',
    });
    expect(moved.result.cleaned_placements).toEqual([
      { management_cluster: 'mgmt-1', namespace: 'clusters-cls-1', name: NAME, outcome: 'deleted' },
    ]);
    expect(await everywhere()).toEqual(['mgmt-2/clusters-cls-1']);
    expect(await places()).toEqual([
      { cluster: 'mgmt-2', namespace: 'clusters-cls-1', name: NAME },
    ]);
  });

  it('leaves a Secret at the old place that is not ours untouched, and logs it', async () => {
    await run('mgmt-1', 'clusters-cls-1');
    // Someone replaced ours with their own Secret of the same name (no labels), and another
    // adapter's Secret sits where a second recorded place points.
    const api = coreApi(mgmt1);
    await api.deleteNamespacedSecret({ namespace: 'clusters-cls-1', name: NAME });
    await api.createNamespacedSecret({
      namespace: 'clusters-cls-1',
      body: {
        metadata: { name: NAME },
        type: 'kubernetes.io/dockerconfigjson',
        data: dockerConfig(),
      },
    });
    const moved = await run('mgmt-2', 'clusters-cls-1');
    expect(moved.code).toBe(EXIT_CODES.success);
    expect(moved.result.cleaned_placements).toEqual([
      { management_cluster: 'mgmt-1', namespace: 'clusters-cls-1', name: NAME, outcome: 'foreign' },
    ]);
    const foreign = await secretIn(mgmt1, 'clusters-cls-1');
    expect(foreign?.data).toEqual(dockerConfig());
    expect(foreign?.metadata?.labels).toBeUndefined();
    const warning = moved.lines.find((line) =>
      String(line.message).includes(
        `Kubernetes Secret clusters-cls-1/${NAME} exists but is not ours`,
      ),
    );
    expect(warning).toMatchObject({
      severity: 'WARNING',
      metadata: { management_cluster: 'mgmt-1', namespace: 'clusters-cls-1' },
    });
    // Nothing of ours is there any more: the place is forgotten.
    expect(await places()).toEqual([
      { cluster: 'mgmt-2', namespace: 'clusters-cls-1', name: NAME },
    ]);
  });

  it('never removes a Secret labelled managed-by=hyperfleet for another cluster id', async () => {
    await run('mgmt-1', 'clusters-cls-1');
    await coreApi(mgmt1).patchNamespacedSecret(
      {
        namespace: 'clusters-cls-1',
        name: NAME,
        body: { metadata: { labels: { 'cluster-id': 'other' } } },
      },
      // A merge patch, as kubectl label does.
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    const moved = await run('mgmt-2', 'clusters-cls-1');
    expect(moved.result.cleaned_placements?.[0]?.outcome).toBe('foreign');
    expect((await secretIn(mgmt1, 'clusters-cls-1'))?.metadata?.labels?.['cluster-id']).toBe(
      'other',
    );
  });

  it('an unreachable old cluster fails the move transient, keeps it recorded, and a rerun cleans it', async () => {
    await run('mgmt-1', 'clusters-cls-1');
    const unreachable = path.join(dir, 'unreachable-kubeconfig');
    writeKubeconfig(unreachable, 'https://127.0.0.1:1', mgmt1.caPem, mgmt1.adminToken);
    const withoutMgmt1 = JSON.stringify({
      'mgmt-1': { kubeconfig: unreachable },
      'mgmt-2': JSON.parse(clusters)['mgmt-2'],
    });
    const failed = await run('mgmt-2', 'clusters-cls-1', { MANAGEMENT_CLUSTERS: withoutMgmt1 });
    expect(failed.code).toBe(EXIT_CODES.transient);
    expect(failed.result).toMatchObject({ outcome: 'failed', failure_kind: 'transient' });
    expect(failed.result.message).toContain(
      `Secret clusters-cls-1/${NAME} on management cluster mgmt-1`,
    );
    expect(failed.result.message).toContain('stays recorded');
    // The new place is written; the old one is still there and still recorded.
    expect(await everywhere()).toEqual(['mgmt-1/clusters-cls-1', 'mgmt-2/clusters-cls-1']);
    expect(await places()).toEqual([
      { cluster: 'mgmt-1', namespace: 'clusters-cls-1', name: NAME },
      { cluster: 'mgmt-2', namespace: 'clusters-cls-1', name: NAME },
    ]);

    // The adapter relaunches the same generation (attempt 2) once mgmt-1 answers again.
    generation -= 1;
    const rerun = await run('mgmt-2', 'clusters-cls-1', { LAUNCH_ATTEMPT: '2' });
    expect(rerun.code).toBe(EXIT_CODES.success);
    expect(rerun.result.kubernetes?.outcome).toBe('unchanged');
    expect(rerun.result.cleaned_placements).toEqual([
      { management_cluster: 'mgmt-1', namespace: 'clusters-cls-1', name: NAME, outcome: 'deleted' },
    ]);
    expect(await everywhere()).toEqual(['mgmt-2/clusters-cls-1']);
    expect(await places()).toEqual([
      { cluster: 'mgmt-2', namespace: 'clusters-cls-1', name: NAME },
    ]);
  });

  it('deletion after an unfinished move removes ours from both clusters, then the secret', async () => {
    await run('mgmt-1', 'clusters-cls-1');
    const unreachable = path.join(dir, 'unreachable-kubeconfig');
    writeKubeconfig(unreachable, 'https://127.0.0.1:1', mgmt1.caPem, mgmt1.adminToken);
    await run('mgmt-2', 'clusters-cls-1', {
      MANAGEMENT_CLUSTERS: JSON.stringify({
        'mgmt-1': { kubeconfig: unreachable },
        'mgmt-2': JSON.parse(clusters)['mgmt-2'],
      }),
    });
    expect(await everywhere()).toEqual(['mgmt-1/clusters-cls-1', 'mgmt-2/clusters-cls-1']);

    const deleted = await run('mgmt-2', 'clusters-cls-1', { OPERATION: 'delete' });
    expect(deleted.code).toBe(EXIT_CODES.success);
    expect(deleted.result).toMatchObject({
      reason: 'CleanupConfirmed',
      kubernetes: { management_cluster: 'mgmt-2', namespace: 'clusters-cls-1', outcome: 'deleted' },
      cleaned_placements: [
        {
          management_cluster: 'mgmt-1',
          namespace: 'clusters-cls-1',
          name: NAME,
          outcome: 'deleted',
        },
      ],
      secret_manager: { secret: 'deleted' },
    });
    expect(await everywhere()).toEqual([]);
    expect(await leftAfterDelete(secretManager, SECRET)).toBe('tombstone');
  });

  it('deletion with a recorded cluster unreachable fails transient and keeps the secret and its record', async () => {
    await run('mgmt-1', 'clusters-cls-1');
    await run('mgmt-2', 'clusters-cls-1');
    const unreachable = path.join(dir, 'unreachable-kubeconfig');
    writeKubeconfig(unreachable, 'https://127.0.0.1:1', mgmt2.caPem, mgmt2.adminToken);
    const failed = await run('mgmt-2', 'clusters-cls-1', {
      OPERATION: 'delete',
      MANAGEMENT_CLUSTERS: JSON.stringify({
        'mgmt-1': JSON.parse(clusters)['mgmt-1'],
        'mgmt-2': { kubeconfig: unreachable },
      }),
    });
    expect(failed.code).toBe(EXIT_CODES.transient);
    expect(await places()).toEqual([
      { cluster: 'mgmt-2', namespace: 'clusters-cls-1', name: NAME },
    ]);
    const rerun = await run('mgmt-2', 'clusters-cls-1', {
      OPERATION: 'delete',
      LAUNCH_ATTEMPT: '2',
    });
    expect(rerun.code).toBe(EXIT_CODES.success);
    expect(await everywhere()).toEqual([]);
  });
});
