import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { EXIT_CODES } from '../../../shared/job-result';
import { recheckClaim } from '../../../functions/pull-secret-job/claim/claim';
import { GoogleSecretStore } from '../../../functions/pull-secret-job/secret-manager/google-secret-store';
import { nullLogger } from '../../../shared/logging/null-logger';
import {
  CLAIM_ANNOTATIONS,
  annotationsWithClaim,
  type Claim,
} from '../../../shared/pull-secret/claim';
import { runJob, samplePullSecret, type JobRun } from '../../helpers/job';
import { secretManagerClient, tombstoneOf } from '../../helpers/secret-manager';

const NS = 'clusters-cls-race';
const SECRET = 'projects/demo-project/secrets/hyperfleet-cls-race-pull-secret';
// The emulator holds each process's claim write (CreateSecret or UpdateSecret) this long before
// applying it, so the other process reads the same state in the meantime and writes too: the race
// is forced, not hoped for (process start-up skew is far below this).
const HOLD_MS = 3000;

/**
 * Two real job processes for the same cluster, generation and operation, started at the same
 * moment against the emulators: exactly one writes (1 Secret Manager version, 1 Kubernetes write),
 * the other exits 0 as a duplicate having written nothing.
 */
describe('pull secret job, two executions racing for the same work (claim in Secret Manager)', () => {
  let sm: SecretManagerEmulator;
  let kube: KubeApiServerEmulator;
  let client: SecretManagerServiceClient;
  let env: Record<string, string>;

  beforeEach(async () => {
    sm = await startSecretManagerEmulator();
    kube = await startKubeApiServerEmulator({ namespaces: [NS] });
    client = secretManagerClient(sm.endpoint);
    env = {
      SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
      KUBECONFIG: kube.kubeconfigPath,
      GCP_PROJECT_ID: 'demo-project',
      CLUSTER_ID: 'cls-race',
      MANAGEMENT_NAMESPACE: NS,
      PULL_SECRET_DATA: samplePullSecret(),
      GENERATION: '1',
      LAUNCH_ATTEMPT: '1',
    };
  });
  afterEach(async () => {
    await client.close();
    await sm.stop();
    await kube.stop();
  });

  const versions = async () => {
    const [list] = await client.listSecretVersions({ parent: SECRET });
    return list.map((v) => `${v.name?.split('/').pop()}:${v.state}`);
  };
  const kubeWrites = () =>
    kube.requests
      .list()
      .filter((r) => r.method !== 'GET' && !r.dryRun)
      .map((r) => `${r.method} ${r.outcome}`);
  const race = async (
    claimWrite: 'CreateSecret' | 'UpdateSecret',
    overrides: Record<string, string> = {},
  ): Promise<[JobRun, JobRun]> => {
    sm.faults.add({ match: claimWrite, count: 2, delayMs: HOLD_MS });
    const runs = await Promise.all(
      ['pull-secret-race-a', 'pull-secret-race-b'].map((execution) =>
        runJob({ ...env, ...overrides, CLOUD_RUN_EXECUTION: execution }),
      ),
    );
    return runs as [JobRun, JobRun];
  };
  const winnerAndDuplicate = (runs: [JobRun, JobRun]) => {
    const winners = runs.filter((run) => run.result.outcome === 'succeeded');
    const duplicates = runs.filter((run) => run.result.outcome === 'stood-aside');
    expect([winners.length, duplicates.length]).toEqual([1, 1]);
    for (const run of runs) expect(run.code).toBe(EXIT_CODES.success);
    return { winner: winners[0]!, duplicate: duplicates[0]! };
  };

  it('a new secret: CreateSecret is the claim, the loser of ALREADY_EXISTS is a duplicate', async () => {
    const { winner, duplicate } = winnerAndDuplicate(await race('CreateSecret'));

    expect(await versions()).toEqual(['1:ENABLED']);
    expect(kubeWrites()).toEqual(['POST 201']);
    expect(winner.result).toMatchObject({
      secret_manager: { secret: 'created', version: 'added' },
      kubernetes: { outcome: 'created' },
    });
    expect(duplicate.result).toMatchObject({
      reason: 'DuplicateExecution',
      phases: [],
      claim_holder: { execution: winner.result.execution, generation: 1, attempt: 1 },
    });
    expect(duplicate.result.secret_manager).toBeUndefined();
    expect(duplicate.result.kubernetes).toBeUndefined();
    const createOutcomes = sm.requests
      .list()
      .filter((r) => r.method === 'CreateSecret')
      .map((r) => r.outcome)
      .sort();
    expect(createOutcomes).toEqual(['ALREADY_EXISTS', 'OK']);
    const [secret] = await client.getSecret({ name: SECRET });
    expect(secret.annotations?.[CLAIM_ANNOTATIONS.execution]).toBe(winner.result.execution);
  }, 60_000);

  it('an existing secret: UpdateSecret with the etag is the claim, the loser of the etag is a duplicate', async () => {
    expect((await runJob({ ...env, CLOUD_RUN_EXECUTION: 'pull-secret-gen-1' })).code).toBe(0);
    sm.requests.clear();
    kube.requests.clear();

    const { winner, duplicate } = winnerAndDuplicate(
      await race('UpdateSecret', {
        GENERATION: '2',
        PULL_SECRET_DATA: samplePullSecret('v2', 'password-2'),
      }),
    );

    expect(await versions()).toEqual(['2:ENABLED', '1:DESTROYED']);
    expect(kubeWrites()).toEqual(['PATCH 200']);
    expect(winner.result.secret_manager).toMatchObject({ version: 'added' });
    expect(duplicate.result).toMatchObject({
      reason: 'DuplicateExecution',
      claim_holder: { execution: winner.result.execution, generation: 2 },
    });
    const updateOutcomes = sm.requests
      .list()
      .filter((r) => r.method === 'UpdateSecret')
      .map((r) => r.outcome)
      .sort();
    // The two claim writes, then the winner's publication of its version (publish-version.ts).
    expect(updateOutcomes).toEqual(['FAILED_PRECONDITION', 'OK', 'OK']);
  }, 60_000);

  it('two deletes of the same generation: one leaves the tombstone, the other writes nothing', async () => {
    expect((await runJob({ ...env, CLOUD_RUN_EXECUTION: 'pull-secret-gen-1' })).code).toBe(0);
    kube.requests.clear();

    const runs = await race('UpdateSecret', { GENERATION: '2', OPERATION: 'delete' });

    const { winner, duplicate } = winnerAndDuplicate(runs);
    expect(winner.result).toMatchObject({
      secret_manager: { secret: 'deleted' },
      kubernetes: { outcome: 'deleted' },
    });
    // The secret stays as the winner's tombstone, so the other one always finds its claim.
    expect(duplicate.result.claim_holder?.execution).toBe(winner.result.execution);
    expect(kubeWrites()).toEqual(['DELETE 200']);
    expect(await tombstoneOf(client, SECRET)).toMatchObject({
      versions: ['1:DESTROYED'],
      claim: 'delete@2',
    });
  }, 60_000);

  it('a Cloud Run task retry of the claim holder continues; a relaunch (higher attempt) takes over; an older generation stands aside', async () => {
    const first = await runJob({ ...env, CLOUD_RUN_EXECUTION: 'pull-secret-holder' });
    expect(first.result.outcome).toBe('succeeded');

    const retry = await runJob({ ...env, CLOUD_RUN_EXECUTION: 'pull-secret-holder' });
    expect(retry.result).toMatchObject({
      outcome: 'succeeded',
      secret_manager: { version: 'unchanged' },
    });

    const relaunch = await runJob({
      ...env,
      LAUNCH_ATTEMPT: '2',
      CLOUD_RUN_EXECUTION: 'pull-secret-relaunch',
    });
    expect(relaunch.result.outcome).toBe('succeeded');

    const stale = await runJob({ ...env, CLOUD_RUN_EXECUTION: 'pull-secret-stale' });
    expect(stale.code).toBe(EXIT_CODES.success);
    expect(stale.result).toMatchObject({
      outcome: 'stood-aside',
      reason: 'SupersededExecution',
      claim_holder: { execution: 'pull-secret-relaunch', attempt: 2 },
    });
    expect(await versions()).toEqual(['1:ENABLED']);
  }, 60_000);

  it('the claim re-check before the Kubernetes write stops an execution whose claim was taken over meanwhile', async () => {
    const store = new GoogleSecretStore(client, {
      timeoutMs: 5000,
      retry: { attempts: 1, baseDelayMs: 10, maxDelayMs: 10 },
      logger: nullLogger,
    });
    const mine: Claim = { generation: 1, operation: 'apply', attempt: 1, execution: 'exec-a' };
    const setClaim = async (claim: Claim) => {
      const [secret] = await client.getSecret({ name: SECRET });
      await client.updateSecret({
        secret: { name: SECRET, etag: secret.etag, annotations: annotationsWithClaim({}, claim) },
        updateMask: { paths: ['annotations'] },
      });
    };
    await client.createSecret({
      parent: 'projects/demo-project',
      secretId: 'hyperfleet-cls-race-pull-secret',
      secret: { replication: { automatic: {} }, labels: { 'managed-by': 'hyperfleet' } },
    });
    await setClaim(mine);
    expect(await recheckClaim(store, SECRET, mine, nullLogger)).toBeUndefined();

    const relaunch = { ...mine, attempt: 2, execution: 'exec-b' };
    await setClaim(relaunch);
    expect(await recheckClaim(store, SECRET, mine, nullLogger)).toEqual({
      kind: 'superseded',
      holder: relaunch,
    });

    await client.deleteSecret({ name: SECRET });
    expect(await recheckClaim(store, SECRET, mine, nullLogger)).toEqual({ kind: 'superseded' });
  });

  it('a claim write whose answer is lost is not retried blindly: the claim is read again and the run goes on', async () => {
    expect((await runJob({ ...env, CLOUD_RUN_EXECUTION: 'pull-secret-gen-1' })).code).toBe(0);
    sm.requests.clear();
    // The emulator applies the update after the client has given up (GCP_API_TIMEOUT=1s).
    sm.faults.add({ match: 'UpdateSecret', count: 1, delayMs: 1500 });
    const run = await runJob({
      ...env,
      GENERATION: '2',
      GCP_API_TIMEOUT: '1s',
      CLOUD_RUN_EXECUTION: 'pull-secret-gen-2',
      PULL_SECRET_DATA: samplePullSecret('v2', 'password-2'),
    });
    expect(run.code).toBe(EXIT_CODES.success);
    expect(run.lines.map((line) => String(line.message))).toContainEqual(
      expect.stringMatching(/Writing the claim failed without an answer/),
    );
    expect(run.result.secret_manager).toMatchObject({ version: 'added' });
    expect(await versions()).toEqual(['2:ENABLED', '1:DESTROYED']);
    const [secret] = await client.getSecret({ name: SECRET });
    expect(secret.annotations?.[CLAIM_ANNOTATIONS.execution]).toBe('pull-secret-gen-2');
    expect(secret.annotations?.[CLAIM_ANNOTATIONS.generation]).toBe('2');
  }, 30_000);
});
