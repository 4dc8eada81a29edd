// The reporter's rules against our status (functions/reporter/report/status-rules.ts), against the
// HyperFleet emulator (upstream's status write rules), the Secret Manager emulator (the claim) and
// the Cloud Run emulator (execution-finished entries): a start report turns the queued row into
// `launched` and nothing else; a stray execution's failure never overwrites the winner's report.
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { CloudRunExecutionReader } from '../../../shared/executions/cloud-run-execution-reader';
import { createReporterHandler } from '../../../functions/reporter/report/handle-report';
import { SecretManagerClaimReader } from '../../../functions/reporter/claim/secret-manager-claim-reader';
import { startCloudRunEmulator, type CloudRunEmulator } from '../../../emulators/cloud-run/server';
import { executionFinishedEntry } from '../../../emulators/cloud-run/finished-entry';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { PUBSUB_MESSAGE_PUBLISHED } from '../../../shared/events/decode';
import {
  RESULT_MESSAGE_TYPE,
  STARTED_MESSAGE_TYPE,
  type JobResult,
  type JobStarted,
} from '../../../shared/job-result';
import { annotationsWithClaim } from '../../../shared/pull-secret/claim';
import { keptConvergence, readOwnStatus } from '../../../shared/status/own-status';
import type { StatusOutcome } from '../../../shared/status/outcome';
import { buildStatus } from '../../../shared/status/status-builder';
import { cloudRunClients, SCRIPTED_TASK, TEST_JOB } from '../../helpers/cloud-run';
import { hyperFleetClient, readySpec } from '../../helpers/hyperfleet';
import { RecordingLogger } from '../../helpers/recording-logger';
import { secretManagerClient } from '../../helpers/secret-manager';

const PROJECT = 'demo-project';
const TASK = 'projects/demo-project/locations/us-central1/queues/pullsecret-launch/tasks/t-1';
const retry = { attempts: 2, baseDelayMs: 10, maxDelayMs: 20 };
const full = (execution: string) => `${TEST_JOB}/executions/${execution}`;
const secretPath = (id: string) => `projects/${PROJECT}/secrets/hyperfleet-${id}-pull-secret`;

describe('reporter: start reports and stray failures, decided on our status', () => {
  let hyperfleet: HyperFleetApiEmulator;
  let sm: SecretManagerEmulator;
  let smClient: SecretManagerServiceClient;
  let cloudRun: CloudRunEmulator;
  let clients: ReturnType<typeof cloudRunClients>;
  let handler: ReturnType<typeof createReporterHandler>;
  const logger = new RecordingLogger();

  beforeAll(async () => {
    [hyperfleet, sm] = await Promise.all([
      startHyperFleetApiEmulator(),
      startSecretManagerEmulator(),
    ]);
    smClient = secretManagerClient(sm.endpoint);
    cloudRun = await startCloudRunEmulator({
      jobs: [{ name: TEST_JOB, command: [process.execPath, SCRIPTED_TASK], maxRetries: 0 }],
    });
    clients = cloudRunClients(cloudRun.endpoint);
    handler = createReporterHandler({
      hyperfleet: api(),
      executions: new CloudRunExecutionReader(clients.executions, { timeoutMs: 5000, retry }),
      claims: new SecretManagerClaimReader(smClient, { timeoutMs: 5000, retry }),
      jobName: TEST_JOB,
      logger,
    });
  });
  afterAll(async () => {
    await clients.jobs.close();
    await clients.executions.close();
    await smClient.close();
    await cloudRun.stop();
    await sm.stop();
    await hyperfleet.stop();
  });

  const api = () => hyperFleetClient(hyperfleet);
  const cluster = async (name: string) =>
    (await api().createCluster({ name, spec: readySpec() })).id;
  const deliver = (body: unknown, type?: string) =>
    handler({
      id: `m-${Math.random()}`,
      type: PUBSUB_MESSAGE_PUBLISHED,
      source: '//pubsub.googleapis.com/projects/p/topics/t',
      specversion: '1.0',
      data: {
        message: {
          data: Buffer.from(JSON.stringify(body)).toString('base64'),
          ...(type ? { attributes: { type } } : {}),
        },
      },
    });
  const own = async (id: string) => readOwnStatus(await api().listStatuses(id));
  const put = (id: string, outcome: StatusOutcome, at = new Date()) =>
    api().putStatus(id, buildStatus(outcome, 1, at));
  const queued = (id: string, attempt: number, kept?: ReturnType<typeof keptConvergence>) =>
    put(id, {
      kind: 'queued',
      operation: 'apply',
      task: TASK,
      attempt,
      since: new Date().toISOString(),
      launchReason: kept ? 'resync' : 'first-event',
      ...(kept ? { kept } : {}),
    });
  const started = (id: string, execution: string, attempt = 1): JobStarted => ({
    cluster_id: id,
    generation: 1,
    operation: 'apply',
    attempt,
    execution,
    launch_id: `0badcafe-${id}-g1-apply-a${attempt}`,
    started_at: new Date(Date.now() + 5).toISOString(),
  });
  const result = (id: string, execution: string, outcome: 'succeeded' | 'failed'): JobResult => ({
    outcome,
    operation: 'apply',
    dry_run: false,
    cluster_id: id,
    generation: 1,
    execution,
    attempt: 1,
    phases: ['secret-manager'],
    ...(outcome === 'succeeded'
      ? {
          reason: 'PullSecretProvisioned',
          message: 'Pull secret stored',
          secret_manager: {
            secret_path: secretPath(id),
            secret: 'created',
            version: 'added',
            version_name: `${secretPath(id)}/versions/1`,
            verified: true,
            destroyed_versions: [],
          },
        }
      : {
          reason: 'SecretManagerUnavailable',
          message: 'Secret Manager did not answer',
          failure_kind: 'transient',
          secret_manager: {
            secret_path: secretPath(id),
            secret: 'reused',
            version: 'unchanged',
            version_name: '',
            verified: false,
            destroyed_versions: [],
          },
        }),
    durations_ms: { total: 10 },
    finished_at: new Date(Date.now() + 20).toISOString(),
  });
  const claim = (id: string, execution: string) =>
    smClient.createSecret({
      parent: `projects/${PROJECT}`,
      secretId: `hyperfleet-${id}-pull-secret`,
      secret: {
        replication: { automatic: {} },
        labels: { 'managed-by': 'hyperfleet' },
        annotations: annotationsWithClaim(undefined, {
          generation: 1,
          operation: 'apply',
          attempt: 1,
          execution,
        }),
      },
    });
  const decisions = (from: number) =>
    logger.lines
      .slice(from)
      .map((line): Record<string, unknown> => ({ level: line.level, ...line.fields }));

  it('records a foreground start over its queued row: JobLaunched, Available=False JobRunning', async () => {
    const id = await cluster('start-foreground');
    await queued(id, 1);
    const start = started(id, 'pullsecret-job-fg001');
    await deliver(start, STARTED_MESSAGE_TYPE);
    expect(await own(id)).toMatchObject({
      appliedReason: 'JobLaunched',
      available: 'False',
      availableReason: 'JobRunning',
      data: {
        execution: full('pullsecret-job-fg001'),
        task: TASK,
        launch_reason: 'first-event',
        launched_at: start.started_at,
        attempt: 1,
        operation: 'apply',
      },
    });
  });

  it('retries a start that arrives before the queued row (Cloud Tasks dispatched first), then records it', async () => {
    const id = await cluster('start-before-queued');
    const start = started(id, 'pullsecret-job-early1');
    // Thrown: Pub/Sub redelivers the message instead of it being dropped.
    await expect(deliver(start, STARTED_MESSAGE_TYPE)).rejects.toThrow(/not recorded yet/);
    expect(await own(id)).toBeUndefined();
    await queued(id, 1);
    await deliver(start, STARTED_MESSAGE_TYPE);
    expect(await own(id)).toMatchObject({
      appliedReason: 'JobLaunched',
      data: { execution: full('pullsecret-job-early1'), attempt: 1 },
    });
  });

  it('records a background start keeping the converged Available=True and its place data', async () => {
    const id = await cluster('start-background');
    await put(
      id,
      {
        kind: 'succeeded',
        execution: full('pullsecret-job-old01'),
        attempt: 1,
        provisioned: {
          secretPath: secretPath(id),
          secretVersion: '3',
          kubernetesSecret: { managementCluster: 'mc-1', namespace: `clusters-${id}`, name: 'ps' },
        },
        timing: { completedAt: new Date().toISOString() },
      },
      new Date(Date.now() - 1000),
    );
    await queued(id, 2, keptConvergence(await own(id)));
    await deliver(started(id, 'pullsecret-job-bg002', 2), STARTED_MESSAGE_TYPE);
    expect(await own(id)).toMatchObject({
      appliedReason: 'JobLaunched',
      available: 'True',
      availableReason: 'PullSecretProvisioned',
      data: {
        execution: full('pullsecret-job-bg002'),
        attempt: 2,
        launch_reason: 'resync',
        secret_path: secretPath(id),
        secret_version: '3',
        management_cluster: 'mc-1',
        namespace: `clusters-${id}`,
        pull_secret_name: 'ps',
      },
    });
  });

  it('does not record a start once the status moved on, nor a second execution of the same attempt', async () => {
    const moved = await cluster('start-after-finish');
    await queued(moved, 1);
    await deliver(result(moved, 'pullsecret-job-fin01', 'succeeded'), RESULT_MESSAGE_TYPE);
    const finished = await own(moved);
    const from = logger.lines.length;
    await deliver(started(moved, 'pullsecret-job-fin01'), STARTED_MESSAGE_TYPE);
    expect(await own(moved)).toEqual(finished);

    const twice = await cluster('start-twice');
    await queued(twice, 1);
    await deliver(started(twice, 'pullsecret-job-one01'), STARTED_MESSAGE_TYPE);
    const first = await own(twice);
    await deliver(started(twice, 'pullsecret-job-two02'), STARTED_MESSAGE_TYPE);
    expect(await own(twice)).toEqual(first);
    expect(first?.data.execution).toBe(full('pullsecret-job-one01'));

    expect(decisions(from).filter((d) => String(d.decision).startsWith('start-'))).toEqual([
      expect.objectContaining({ level: 'info', decision: 'start-after-finish' }),
      expect.objectContaining({ level: 'info', decision: 'start-of-stray-execution' }),
    ]);
  });

  it("a stray execution's failure after the winner's success leaves the success and logs stray-failure", async () => {
    const id = await cluster('stray-failure');
    await queued(id, 1);
    await deliver(started(id, 'pullsecret-job-win01'), STARTED_MESSAGE_TYPE);
    await claim(id, 'pullsecret-job-win01');
    await deliver(result(id, 'pullsecret-job-win01', 'succeeded'), RESULT_MESSAGE_TYPE);
    const success = await own(id);
    expect(success).toMatchObject({ appliedReason: 'JobSucceeded', available: 'True' });

    const from = logger.lines.length;
    // The job's own failure result of a second execution of the same task...
    await deliver(result(id, 'pullsecret-job-str02', 'failed'), RESULT_MESSAGE_TYPE);
    // ...and Cloud Run's execution-finished entry of a stray that crashed.
    const [run] = await clients.jobs.runJob({
      name: TEST_JOB,
      overrides: {
        containerOverrides: [
          {
            env: Object.entries({
              CLUSTER_ID: id,
              GENERATION: '1',
              OPERATION: 'apply',
              GCP_PROJECT_ID: PROJECT,
              LAUNCH_ATTEMPT: '1',
              TASK_BEHAVIOUR: 'fail',
            }).map(([name, value]) => ({ name, value })),
          },
        ],
      },
    });
    const stray = await cloudRun.waitForExecution((run.metadata as { name: string }).name);
    await deliver(executionFinishedEntry(cloudRun.executions.get(stray.name)!));

    expect(await own(id)).toEqual(success);
    const strays = decisions(from).filter((d) => d.decision === 'stray-failure');
    expect(strays.map((d) => [d.level, d.source])).toEqual([
      ['warn', 'job-result'],
      ['warn', 'execution-finished'],
    ]);
  });

  it('reports the failure of the execution our status names', async () => {
    const id = await cluster('named-failure');
    await queued(id, 1);
    await deliver(started(id, 'pullsecret-job-own01'), STARTED_MESSAGE_TYPE);
    await deliver(result(id, 'pullsecret-job-own01', 'failed'), RESULT_MESSAGE_TYPE);
    expect(await own(id)).toMatchObject({
      appliedReason: 'JobExecuted',
      available: 'False',
      availableReason: 'SecretManagerUnavailable',
      data: { execution: full('pullsecret-job-own01'), attempt: 1 },
    });
  });

  it('reports a failure over the queued row of its attempt when the start was never heard of', async () => {
    const id = await cluster('queued-failure');
    await queued(id, 1);
    await deliver(result(id, 'pullsecret-job-q0001', 'failed'), RESULT_MESSAGE_TYPE);
    expect(await own(id)).toMatchObject({
      appliedReason: 'JobExecuted',
      data: { execution: full('pullsecret-job-q0001') },
    });
  });
});
