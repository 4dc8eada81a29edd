// The Cloud Run emulator's IAM, each rule against the documentation it follows:
// - RunJob checks run.jobs.run on the job and, with overrides, run.jobs.runWithOverrides
//   (https://cloud.google.com/run/docs/reference/rest/v2/projects.locations.jobs/run); reading an
//   execution needs run.executions.get, its tasks run.tasks.get/list, listing executions
//   run.executions.list, polling an operation run.operations.get
//   (https://cloud.google.com/run/docs/reference/iam/permissions).
// - Cloud Run Jobs Executor With Overrides holds run.jobs.run, run.jobs.runWithOverrides and
//   run.executions.cancel, and nothing to read (https://cloud.google.com/iam/docs/roles-permissions/run):
//   what Terraform grants the launcher on the job (launch-queue.tf).
// - A binding on the job applies to its executions and tasks; one on the location to every job
//   (https://cloud.google.com/iam/docs/allow-policies, "Policy inheritance").
// - PERMISSION_DENIED before NOT_FOUND, in Cloud Run's words ("Permission '...' denied on resource
//   '...' (or resource may not exist)."); UNAUTHENTICATED for a token Google does not know, and,
//   with --enforce-iam, for a call without one (as every Google API).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { status } from '@grpc/grpc-js';
import { v2 } from '@google-cloud/run';
import type { ServingCertificate } from '../../../emulators/common/certificates';
import {
  MISSING_CREDENTIALS_MESSAGE,
  UNAUTHENTICATED_MESSAGE,
} from '../../../emulators/common/google-caller';
import type { IamConfigInput } from '../../../emulators/common/iam/iam-config';
import { startCloudRunEmulator, type CloudRunEmulator } from '../../../emulators/cloud-run/server';
import {
  startMetadataServer,
  type MetadataServerEmulator,
} from '../../../emulators/metadata-server/server';
import { cloudRunClients, SCRIPTED_TASK, TEST_JOB } from '../../helpers/cloud-run';
import { httpsJson, localServingCertificate, tlsClientOptions } from '../../helpers/google-tls';
import { metadataServerToken } from '../../helpers/metadata-token';
import { ROOT } from '../../helpers/run-process';
import { startTracked } from '../../helpers/tracked-processes';

const LOCATION = 'projects/demo-project/locations/us-central1';
const OTHER_JOB = `${LOCATION}/jobs/other-job`;
const LAUNCHER = 'pullsecret-launcher@demo-project.iam.gserviceaccount.com';
const EXECUTION_READER = 'projects/demo-project/roles/pullSecretExecutionReader';
const OVERRIDES = { containerOverrides: [{ env: [{ name: 'CLUSTER_ID', value: 'c-1' }] }] };

const job = (name: string) => ({
  name,
  command: [process.execPath, SCRIPTED_TASK],
  env: { TASK_BEHAVIOUR: 'succeed' },
  maxRetries: 0,
  timeoutSeconds: 30,
});

/** The launcher's grants as Terraform makes them: the executor role with overrides, on the job only. */
const iamConfig = (uniqueId: string): IamConfigInput => ({
  projects: { 'demo-project': '123456789012' },
  serviceAccounts: { [uniqueId]: LAUNCHER },
  customRoles: {
    // job.tf's execution reader: GetExecution, GetTask, ListTasks.
    [EXECUTION_READER]: ['run.executions.get', 'run.tasks.get', 'run.tasks.list'],
  },
  bindings: [
    {
      resource: TEST_JOB,
      role: 'roles/run.jobsExecutorWithOverrides',
      members: [`serviceAccount:${LAUNCHER}`],
    },
  ],
});

async function failure(promise: Promise<unknown>): Promise<{ code?: number; details?: string }> {
  try {
    await promise;
    return {};
  } catch (error) {
    const { code, details } = error as { code?: number; details?: string };
    return { ...(code !== undefined ? { code } : {}), ...(details ? { details } : {}) };
  }
}

const denied = (permission: string, resource: string) => ({
  code: status.PERMISSION_DENIED,
  details: `Permission '${permission}' denied on resource '${resource}' (or resource may not exist).`,
});

describe('Cloud Run emulator: IAM as Terraform grants it, over TLS with call credentials', () => {
  let metadata: MetadataServerEmulator;
  let dir: string;
  let certificate: ServingCertificate;
  let emulator: CloudRunEmulator;
  let token: string | undefined;
  let clients: { jobs: v2.JobsClient; executions: v2.ExecutionsClient; tasks: v2.TasksClient };

  beforeAll(async () => {
    metadata = await startMetadataServer({ serviceAccount: LAUNCHER });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'run-iam-'));
    certificate = localServingCertificate(dir);
  });
  afterAll(async () => {
    await metadata.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    emulator = await startCloudRunEmulator({
      jobs: [job(TEST_JOB), job(OTHER_JOB)],
      iam: iamConfig(metadata.uniqueId),
      googleTokenInfoUrl: metadata.tokenInfoUrl,
      enforceIam: true,
      servingCertificate: certificate,
    });
    token = await metadataServerToken(metadata.endpoint);
    const options = tlsClientOptions(emulator.endpoint, certificate.caPem, () => token);
    clients = {
      jobs: new v2.JobsClient(options),
      executions: new v2.ExecutionsClient(options),
      tasks: new v2.TasksClient(options),
    };
  });
  afterEach(async () => {
    await Promise.all(Object.values(clients).map((c) => c.close()));
    await emulator.stop();
  });

  it('the launcher runs its job with overrides, and no other job', async () => {
    const [operation] = await clients.jobs.runJob({ name: TEST_JOB, overrides: OVERRIDES });
    const execution = (operation.metadata as { name: string }).name;
    expect(execution).toMatch(new RegExp(`^${TEST_JOB}/executions/`));
    expect(emulator.executions.get(execution)?.env.CLUSTER_ID).toBe('c-1');
    expect(await failure(clients.jobs.runJob({ name: OTHER_JOB, overrides: OVERRIDES }))).toEqual(
      denied('run.jobs.run', OTHER_JOB),
    );
    expect(await failure(clients.jobs.runJob({ name: OTHER_JOB }))).toEqual(
      denied('run.jobs.run', OTHER_JOB),
    );
    expect([...emulator.executions.keys()]).toEqual([execution]);
    await emulator.waitForExecution(execution);
    // A token without userinfo.email names only the account's unique id: IAM still knows it.
    token = await metadataServerToken(metadata.endpoint, [
      'https://www.googleapis.com/auth/cloud-platform',
    ]);
    const [again] = await clients.jobs.runJob({ name: TEST_JOB });
    await emulator.waitForExecution((again.metadata as { name: string }).name);
  });

  it('reads nothing without the read permissions (not the execution, its tasks, the job or the operation); the execution reader on the job reads the execution and its tasks', async () => {
    const [operation] = await clients.jobs.runJob({ name: TEST_JOB, overrides: OVERRIDES });
    const execution = (operation.metadata as { name: string }).name;
    await emulator.waitForExecution(execution);
    expect(await failure(clients.executions.getExecution({ name: execution }))).toEqual(
      denied('run.executions.get', execution),
    );
    expect(await failure(clients.tasks.listTasks({ parent: execution }))).toEqual(
      denied('run.tasks.list', execution),
    );
    expect(await failure(clients.jobs.getJob({ name: TEST_JOB }))).toEqual(
      denied('run.jobs.get', TEST_JOB),
    );
    // Cloud Run Jobs Executor holds no run.operations.get: its RunJob cannot be polled.
    expect(await failure(clients.jobs.checkRunJobProgress(operation.name!))).toEqual(
      denied('run.operations.get', operation.name!),
    );

    emulator.iam!.addBinding({
      resource: TEST_JOB,
      role: EXECUTION_READER,
      members: [`serviceAccount:${LAUNCHER}`],
    });
    const [read] = await clients.executions.getExecution({ name: execution });
    expect(read.succeededCount).toBe(1);
    const [tasks] = await clients.tasks.listTasks({ parent: execution });
    expect(tasks).toHaveLength(1);
    const [task] = await clients.tasks.getTask({ name: tasks[0]!.name! });
    expect(task.name).toBe(tasks[0]!.name);
    // Listing executions is another permission (the adapter was not given it).
    expect(await failure(clients.executions.listExecutions({ parent: TEST_JOB }))).toEqual(
      denied('run.executions.list', TEST_JOB),
    );
  });

  it('PERMISSION_DENIED before NOT_FOUND: a missing job is refused like another job, and NOT_FOUND only with the permission', async () => {
    const missing = `${LOCATION}/jobs/no-such-job`;
    expect(await failure(clients.jobs.runJob({ name: missing }))).toEqual(
      denied('run.jobs.run', missing),
    );
    expect(
      await failure(clients.executions.getExecution({ name: `${TEST_JOB}/executions/nope` })),
    ).toEqual(denied('run.executions.get', `${TEST_JOB}/executions/nope`));
    // Granted on the location, the role reaches every job there, and the missing one is missing.
    emulator.iam!.addBinding({
      resource: LOCATION,
      role: 'roles/run.jobsExecutor',
      members: [`serviceAccount:${LAUNCHER}`],
    });
    expect((await failure(clients.jobs.runJob({ name: missing }))).code).toBe(status.NOT_FOUND);
    const [operation] = await clients.jobs.runJob({ name: OTHER_JOB });
    await emulator.waitForExecution((operation.metadata as { name: string }).name);
  });

  it('overrides need run.jobs.runWithOverrides: Cloud Run Jobs Executor runs the job only as it is', async () => {
    emulator.iam!.replace({
      ...iamConfig(metadata.uniqueId),
      bindings: [
        {
          resource: TEST_JOB,
          role: 'roles/run.jobsExecutor',
          members: [`serviceAccount:${LAUNCHER}`],
        },
      ],
    });
    expect(await failure(clients.jobs.runJob({ name: TEST_JOB, overrides: OVERRIDES }))).toEqual(
      denied('run.jobs.runWithOverrides', TEST_JOB),
    );
    const [operation] = await clients.jobs.runJob({ name: TEST_JOB });
    const execution = (operation.metadata as { name: string }).name;
    // The executor roles may cancel an execution of the job (run.executions.cancel).
    await clients.executions.cancelExecution({ name: execution });
    await emulator.waitForExecution(execution);
  });

  it('UNAUTHENTICATED for a token Google does not know, and, with --enforce-iam, for a call without credentials', async () => {
    token = 'ya29.not-a-token-the-metadata-server-issued';
    expect(await failure(clients.jobs.runJob({ name: TEST_JOB }))).toEqual({
      code: status.UNAUTHENTICATED,
      details: UNAUTHENTICATED_MESSAGE,
    });
    token = undefined;
    expect(await failure(clients.jobs.runJob({ name: TEST_JOB }))).toEqual({
      code: status.UNAUTHENTICATED,
      details: MISSING_CREDENTIALS_MESSAGE,
    });
    expect(await failure(clients.jobs.getJob({ name: `${LOCATION}/jobs/no-such-job` }))).toEqual({
      code: status.UNAUTHENTICATED,
      details: MISSING_CREDENTIALS_MESSAGE,
    });
    expect(emulator.executions.size).toBe(0);
  });

  it('the REST jobs.run over HTTPS: 200 for the launcher on its job, 403 on another or without runWithOverrides, 401 for an unknown token, in Google JSON', async () => {
    const run = (name: string, body: unknown, bearer = token) =>
      httpsJson('POST', `${emulator.apiUrl}/v2/${name}:run`, certificate.caPem, {
        headers: { authorization: `Bearer ${bearer}` },
        body,
      });
    expect(emulator.apiUrl).toMatch(/^https:\/\//);
    const ok = await run(TEST_JOB, { overrides: OVERRIDES });
    expect(ok.status).toBe(200);
    const execution = (ok.body as { metadata: { name: string } }).metadata.name;
    expect(emulator.executions.get(execution)?.env.CLUSTER_ID).toBe('c-1');
    expect(await run(OTHER_JOB, {})).toEqual({
      status: 403,
      body: {
        error: {
          code: 403,
          message: denied('run.jobs.run', OTHER_JOB).details,
          status: 'PERMISSION_DENIED',
        },
      },
    });
    expect(await run(TEST_JOB, {}, 'ya29.unknown')).toEqual({
      status: 401,
      body: { error: { code: 401, message: UNAUTHENTICATED_MESSAGE, status: 'UNAUTHENTICATED' } },
    });
    emulator.iam!.replace({
      ...iamConfig(metadata.uniqueId),
      bindings: [
        {
          resource: TEST_JOB,
          role: 'roles/run.invoker',
          members: [`serviceAccount:${LAUNCHER}`],
        },
      ],
    });
    const withOverrides = await run(TEST_JOB, { overrides: OVERRIDES });
    expect([
      withOverrides.status,
      (withOverrides.body as { error: { message: string } }).error,
    ]).toEqual([
      403,
      expect.objectContaining({ message: denied('run.jobs.runWithOverrides', TEST_JOB).details }),
    ]);
    expect((await run(TEST_JOB, {})).status).toBe(200);
    expect(emulator.executions.size).toBe(2);
    await Promise.all([...emulator.executions.keys()].map((e) => emulator.waitForExecution(e)));
  });

  it('the admin API (HTTPS with the serving certificate) reads and changes the bindings', async () => {
    const admin = `${emulator.adminUrl}/_emulator/iam`;
    const read = await httpsJson('GET', admin, certificate.caPem);
    expect(read.status).toBe(200);
    expect((read.body as { bindings: unknown[] }).bindings).toHaveLength(1);
    const removed = await httpsJson('DELETE', `${admin}/bindings`, certificate.caPem, {
      body: {
        resource: TEST_JOB,
        role: 'roles/run.jobsExecutorWithOverrides',
        member: `serviceAccount:${LAUNCHER}`,
      },
    });
    expect(removed).toEqual({ status: 200, body: expect.anything() });
    expect(await failure(clients.jobs.runJob({ name: TEST_JOB }))).toEqual(
      denied('run.jobs.run', TEST_JOB),
    );
  });
});

describe('Cloud Run emulator: IAM without --enforce-iam, plaintext', () => {
  let metadata: MetadataServerEmulator;
  let emulator: CloudRunEmulator;
  let clients: ReturnType<typeof cloudRunClients>;

  beforeAll(async () => {
    metadata = await startMetadataServer({ serviceAccount: LAUNCHER });
    emulator = await startCloudRunEmulator({
      jobs: [job(TEST_JOB), job(OTHER_JOB)],
      iam: iamConfig(metadata.uniqueId),
      googleTokenInfoUrl: metadata.tokenInfoUrl,
    });
    clients = cloudRunClients(emulator.endpoint);
  });
  afterAll(async () => {
    await Promise.all(Object.values(clients).map((c) => c.close()));
    await emulator.stop();
    await metadata.stop();
  });

  it("a call without credentials is the emulator's own, as today; one with a token is authorized", async () => {
    const [operation] = await clients.jobs.runJob({ name: OTHER_JOB });
    const execution = (operation.metadata as { name: string }).name;
    const [read] = await clients.executions.getExecution({ name: execution });
    expect(read.name).toBe(execution);
    // A bearer token (sent as the header gax would send) is checked, even on a plaintext channel.
    const token = await metadataServerToken(metadata.endpoint);
    const as = { otherArgs: { headers: { authorization: `Bearer ${token}` } } };
    expect(await failure(clients.executions.getExecution({ name: execution }, as))).toEqual(
      denied('run.executions.get', execution),
    );
    expect(await failure(clients.jobs.runJob({ name: OTHER_JOB }, as))).toEqual(
      denied('run.jobs.run', OTHER_JOB),
    );
    await emulator.waitForExecution(execution);
  });

  it('the REST jobs.run still needs a bearer token, and checks it', async () => {
    const run = (headers: Record<string, string>) =>
      fetch(`${emulator.apiUrl}/v2/${OTHER_JOB}:run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{}',
      });
    expect((await run({})).status).toBe(401);
    const token = await metadataServerToken(metadata.endpoint);
    expect((await run({ authorization: `Bearer ${token}` })).status).toBe(403);
  });
});

describe('npm run emulators -- cloud-run --iam-file --google-token-info --enforce-iam --serving-cert-dir', () => {
  it('serves TLS, authorizes the launcher and refuses a call without credentials', async () => {
    const metadata = await startMetadataServer({ serviceAccount: LAUNCHER });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'run-iam-cli-'));
    const certificate = localServingCertificate(dir);
    fs.writeFileSync(path.join(dir, 'jobs.json'), JSON.stringify([job(TEST_JOB), job(OTHER_JOB)]));
    fs.writeFileSync(path.join(dir, 'iam.json'), JSON.stringify(iamConfig(metadata.uniqueId)));
    const cli = await startTracked({
      command: process.execPath,
      args: [
        path.join(ROOT, 'dist/emulators/pullsecret/cli.js'),
        'cloud-run',
        '--config',
        path.join(dir, 'jobs.json'),
        '--iam-file',
        path.join(dir, 'iam.json'),
        '--google-token-info',
        metadata.tokenInfoUrl,
        '--enforce-iam',
        '--serving-cert-dir',
        dir,
      ],
    });
    expect(cli.info).toMatchObject({ name: 'cloud-run', tls: true, iam: 'enforced' });
    const token = await metadataServerToken(metadata.endpoint);
    const endpoint = cli.info.endpoint as string;
    const launcher = new v2.JobsClient(tlsClientOptions(endpoint, certificate.caPem, () => token));
    const anonymous = new v2.JobsClient(tlsClientOptions(endpoint, certificate.caPem));
    try {
      const [operation] = await launcher.runJob({ name: TEST_JOB, overrides: OVERRIDES });
      expect((operation.metadata as { name: string }).name).toMatch(/\/executions\//);
      expect((await failure(launcher.runJob({ name: OTHER_JOB }))).code).toBe(
        status.PERMISSION_DENIED,
      );
      expect(await failure(anonymous.runJob({ name: TEST_JOB }))).toEqual({
        code: status.UNAUTHENTICATED,
        details: MISSING_CREDENTIALS_MESSAGE,
      });
    } finally {
      await launcher.close();
      await anonymous.close();
      await cli.stop(2000);
      await metadata.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
