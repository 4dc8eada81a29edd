// The Cloud Tasks emulator's IAM, each rule against the documentation it follows:
// - "Every Cloud Tasks method requires the caller to have the necessary permissions": CreateTask
//   cloudtasks.tasks.create on the queue, GetTask cloudtasks.tasks.get, DeleteTask
//   cloudtasks.tasks.delete, PauseQueue cloudtasks.queues.pause, CreateQueue cloudtasks.queues.create
//   on the location, ... (https://cloud.google.com/tasks/docs/reference-access-control).
// - A FULL view needs cloudtasks.tasks.fullView (GetTaskRequest.response_view in
//   google/cloud/tasks/v2/cloudtasks.proto); a task with an OAuth token needs actAs on its account
//   (https://cloud.google.com/tasks/docs/reference/rest/v2/OAuthToken).
// - Cloud Tasks Enqueuer holds cloudtasks.tasks.create and fullView, nothing else of Cloud Tasks
//   (https://cloud.google.com/iam/docs/roles-permissions/cloudtasks): what Terraform grants the
//   adapter on its queue, with a custom role for tasks.get and tasks.delete (launch-queue.tf).
// - PERMISSION_DENIED before NOT_FOUND, in Cloud Tasks' words ('The principal (user or service
//   account) lacks IAM permission "..." for the resource "..." (or the resource may not exist).').
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { status } from '@grpc/grpc-js';
import { CloudTasksClient } from '@google-cloud/tasks';
import type { ServingCertificate } from '../../../emulators/common/certificates';
import {
  MISSING_CREDENTIALS_MESSAGE,
  UNAUTHENTICATED_MESSAGE,
} from '../../../emulators/common/google-caller';
import type { IamConfigInput } from '../../../emulators/common/iam/iam-config';
import {
  startCloudTasksEmulator,
  type CloudTasksEmulator,
} from '../../../emulators/cloud-tasks/server';
import {
  startMetadataServer,
  type MetadataServerEmulator,
} from '../../../emulators/metadata-server/server';
import { cloudTasksClient, LAUNCHER_SA, NO_RETRY, TEST_LOCATION } from '../../helpers/cloud-tasks';
import { httpsJson, localServingCertificate, tlsClientOptions } from '../../helpers/google-tls';
import { metadataServerToken } from '../../helpers/metadata-token';
import { ROOT } from '../../helpers/run-process';
import { startTracked } from '../../helpers/tracked-processes';

const ADAPTER = 'pullsecret-adapter@demo-project.iam.gserviceaccount.com';
const LAUNCHES = `${TEST_LOCATION}/queues/pullsecret-launches`;
const OTHER = `${TEST_LOCATION}/queues/other`;
const LAUNCH_TASKS = 'projects/demo-project/roles/pullSecretLaunchTasks';
const ADAPTER_MEMBER = `serviceAccount:${ADAPTER}`;

/** The adapter's grants as Terraform makes them, except the custom role (granted by the tests). */
const iamConfig = (uniqueId: string): IamConfigInput => ({
  projects: { 'demo-project': '123456789012' },
  serviceAccounts: { [uniqueId]: ADAPTER },
  customRoles: { [LAUNCH_TASKS]: ['cloudtasks.tasks.delete', 'cloudtasks.tasks.get'] },
  bindings: [
    { resource: LAUNCHES, role: 'roles/cloudtasks.enqueuer', members: [ADAPTER_MEMBER] },
    {
      resource: `projects/demo-project/serviceAccounts/${LAUNCHER_SA}`,
      role: 'roles/iam.serviceAccountUser',
      members: [ADAPTER_MEMBER],
    },
  ],
});

/** A launch task as the adapter creates it: RunJob's URL, the launcher's OAuth token. */
const launchTask = (queue: string, id: string) => ({
  name: `${queue}/tasks/${id}`,
  httpRequest: {
    url: 'http://127.0.0.1:9/v2/projects/demo-project/locations/us-central1/jobs/j:run',
    body: Buffer.from('{"overrides":{}}'),
    oauthToken: { serviceAccountEmail: LAUNCHER_SA },
  },
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
  details: `The principal (user or service account) lacks IAM permission "${permission}" for the resource "${resource}" (or the resource may not exist).`,
});

describe('Cloud Tasks emulator: IAM as Terraform grants it, over TLS with call credentials', () => {
  let metadata: MetadataServerEmulator;
  let dir: string;
  let certificate: ServingCertificate;
  let emulator: CloudTasksEmulator;
  let client: CloudTasksClient;
  let token: string | undefined;
  const grant = (resource: string, role: string) =>
    emulator.iam!.addBinding({ resource, role, members: [ADAPTER_MEMBER] });

  beforeAll(async () => {
    metadata = await startMetadataServer({ serviceAccount: ADAPTER });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-iam-'));
    certificate = localServingCertificate(dir);
  });
  afterAll(async () => {
    await metadata.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    emulator = await startCloudTasksEmulator({
      queues: [{ name: LAUNCHES }, { name: OTHER }],
      dispatch: 'manual',
      iam: iamConfig(metadata.uniqueId),
      googleTokenInfoUrl: metadata.tokenInfoUrl,
      enforceIam: true,
      servingCertificate: certificate,
    });
    token = await metadataServerToken(metadata.endpoint);
    client = new CloudTasksClient(
      tlsClientOptions(emulator.endpoint, certificate.caPem, () => token),
    );
  });
  afterEach(async () => {
    await client.close();
    await emulator.stop();
  });

  it('the enqueuer creates tasks in its queue only', async () => {
    const [task] = await client.createTask(
      { parent: LAUNCHES, task: launchTask(LAUNCHES, 'a1') },
      NO_RETRY,
    );
    expect(task.name).toBe(`${LAUNCHES}/tasks/a1`);
    // Enqueuer holds fullView: it may read back the whole task it created.
    const [full] = await client.createTask(
      { parent: LAUNCHES, task: launchTask(LAUNCHES, 'a2'), responseView: 'FULL' },
      NO_RETRY,
    );
    expect(full.httpRequest?.url).toMatch(/:run$/);
    expect(
      await failure(client.createTask({ parent: OTHER, task: launchTask(OTHER, 'a1') }, NO_RETRY)),
    ).toEqual(denied('cloudtasks.tasks.create', OTHER));
    expect(emulator.book.tasksOf(OTHER)).toHaveLength(0);
  });

  it('a task with the launcher token needs actAs on the launcher account', async () => {
    emulator.iam!.removeMember({
      resource: `projects/demo-project/serviceAccounts/${LAUNCHER_SA}`,
      role: 'roles/iam.serviceAccountUser',
      member: ADAPTER_MEMBER,
    });
    expect(
      await failure(
        client.createTask({ parent: LAUNCHES, task: launchTask(LAUNCHES, 'b1') }, NO_RETRY),
      ),
    ).toEqual(denied('iam.serviceAccounts.actAs', LAUNCHER_SA));
    expect(emulator.book.tasksOf(LAUNCHES)).toHaveLength(0);
  });

  it('GetTask and DeleteTask need the custom role (tasks.get, tasks.delete), granted on the queue; ListTasks and the queue stay out of reach', async () => {
    const name = `${LAUNCHES}/tasks/c1`;
    await client.createTask({ parent: LAUNCHES, task: launchTask(LAUNCHES, 'c1') }, NO_RETRY);
    expect(await failure(client.getTask({ name }, NO_RETRY))).toEqual(
      denied('cloudtasks.tasks.get', LAUNCHES),
    );
    expect(await failure(client.deleteTask({ name }, NO_RETRY))).toEqual(
      denied('cloudtasks.tasks.delete', LAUNCHES),
    );
    grant(LAUNCHES, LAUNCH_TASKS);
    const [got] = await client.getTask({ name }, NO_RETRY);
    expect(got.name).toBe(name);
    expect(await failure(client.listTasks({ parent: LAUNCHES }, NO_RETRY))).toEqual(
      denied('cloudtasks.tasks.list', LAUNCHES),
    );
    expect(await failure(client.getQueue({ name: LAUNCHES }, NO_RETRY))).toEqual(
      denied('cloudtasks.queues.get', LAUNCHES),
    );
    expect(await failure(client.pauseQueue({ name: LAUNCHES }, NO_RETRY))).toEqual(
      denied('cloudtasks.queues.pause', LAUNCHES),
    );
    await client.deleteTask({ name }, NO_RETRY);
    expect(emulator.book.tasksOf(LAUNCHES)).toHaveLength(0);
  });

  it('FULL needs cloudtasks.tasks.fullView on the task: the custom role alone reads BASIC only', async () => {
    const name = `${LAUNCHES}/tasks/d1`;
    await client.createTask({ parent: LAUNCHES, task: launchTask(LAUNCHES, 'd1') }, NO_RETRY);
    grant(LAUNCHES, LAUNCH_TASKS);
    emulator.iam!.removeMember({
      resource: LAUNCHES,
      role: 'roles/cloudtasks.enqueuer',
      member: ADAPTER_MEMBER,
    });
    const [basic] = await client.getTask({ name }, NO_RETRY);
    expect(basic.httpRequest?.body?.length ?? 0).toBe(0);
    expect(await failure(client.getTask({ name, responseView: 'FULL' }, NO_RETRY))).toEqual(
      denied('cloudtasks.tasks.fullView', name),
    );
  });

  it('PERMISSION_DENIED before NOT_FOUND: a missing task or queue is refused like a foreign one', async () => {
    grant(LAUNCHES, LAUNCH_TASKS);
    expect((await failure(client.getTask({ name: `${LAUNCHES}/tasks/none` }, NO_RETRY))).code).toBe(
      status.NOT_FOUND,
    );
    expect(await failure(client.getTask({ name: `${OTHER}/tasks/none` }, NO_RETRY))).toEqual(
      denied('cloudtasks.tasks.get', OTHER),
    );
    const missing = `${TEST_LOCATION}/queues/no-such-queue`;
    expect(
      await failure(
        client.createTask({ parent: missing, task: launchTask(missing, 'e1') }, NO_RETRY),
      ),
    ).toEqual(denied('cloudtasks.tasks.create', missing));
  });

  it('an operator with Queue Admin on the location pauses and resumes the queue and creates queues; the enqueuer cannot', async () => {
    const created = `${TEST_LOCATION}/queues/created`;
    expect(
      await failure(
        client.createQueue({ parent: TEST_LOCATION, queue: { name: created } }, NO_RETRY),
      ),
    ).toEqual(denied('cloudtasks.queues.create', TEST_LOCATION));
    grant(TEST_LOCATION, 'roles/cloudtasks.queueAdmin');
    const [paused] = await client.pauseQueue({ name: LAUNCHES }, NO_RETRY);
    expect(paused.state).toBe('PAUSED');
    const [resumed] = await client.resumeQueue({ name: LAUNCHES }, NO_RETRY);
    expect(resumed.state).toBe('RUNNING');
    const [queue] = await client.createQueue(
      { parent: TEST_LOCATION, queue: { name: created } },
      NO_RETRY,
    );
    expect(queue.name).toBe(created);
    // Queue Admin holds every queue permission (purge too), and nothing of tasks.
    expect(await failure(client.purgeQueue({ name: OTHER }, NO_RETRY))).toEqual({});
    expect(await failure(client.runTask({ name: `${OTHER}/tasks/x` }, NO_RETRY))).toEqual(
      denied('cloudtasks.tasks.run', `${OTHER}/tasks/x`),
    );
  });

  it('UNAUTHENTICATED for a token Google does not know, and, with --enforce-iam, for a call without credentials', async () => {
    token = 'ya29.unknown';
    expect(await failure(client.getQueue({ name: LAUNCHES }, NO_RETRY))).toEqual({
      code: status.UNAUTHENTICATED,
      details: UNAUTHENTICATED_MESSAGE,
    });
    token = undefined;
    expect(
      await failure(
        client.createTask({ parent: LAUNCHES, task: launchTask(LAUNCHES, 'f1') }, NO_RETRY),
      ),
    ).toEqual({ code: status.UNAUTHENTICATED, details: MISSING_CREDENTIALS_MESSAGE });
    expect(emulator.book.tasksOf(LAUNCHES)).toHaveLength(0);
  });

  it('the admin API serves the bindings over HTTPS', async () => {
    const read = await httpsJson('GET', `${emulator.adminUrl}/_emulator/iam`, certificate.caPem);
    expect(read.status).toBe(200);
    const added = await httpsJson(
      'POST',
      `${emulator.adminUrl}/_emulator/iam/bindings`,
      certificate.caPem,
      { body: { resource: OTHER, role: 'roles/cloudtasks.enqueuer', members: [ADAPTER_MEMBER] } },
    );
    expect(added.status).toBe(200);
    await client.createTask({ parent: OTHER, task: launchTask(OTHER, 'g1') }, NO_RETRY);
    expect(emulator.book.tasksOf(OTHER)).toHaveLength(1);
  });
});

describe('Cloud Tasks emulator: IAM without --enforce-iam, plaintext', () => {
  let metadata: MetadataServerEmulator;
  let emulator: CloudTasksEmulator;
  let client: CloudTasksClient;

  beforeAll(async () => {
    metadata = await startMetadataServer({ serviceAccount: ADAPTER });
    emulator = await startCloudTasksEmulator({
      queues: [{ name: LAUNCHES }, { name: OTHER }],
      dispatch: 'manual',
      iam: iamConfig(metadata.uniqueId),
      googleTokenInfoUrl: metadata.tokenInfoUrl,
    });
    client = cloudTasksClient(emulator.endpoint);
  });
  afterAll(async () => {
    await client.close();
    await emulator.stop();
    await metadata.stop();
  });

  it("a call without credentials is the emulator's own, as today; one with a token is authorized", async () => {
    await client.createTask({ parent: OTHER, task: launchTask(OTHER, 'h1') }, NO_RETRY);
    const [task] = await client.getTask({ name: `${OTHER}/tasks/h1` }, NO_RETRY);
    expect(task.name).toBe(`${OTHER}/tasks/h1`);
    const token = await metadataServerToken(metadata.endpoint);
    const as = { ...NO_RETRY, otherArgs: { headers: { authorization: `Bearer ${token}` } } };
    expect(await failure(client.getTask({ name: `${OTHER}/tasks/h1` }, as))).toEqual(
      denied('cloudtasks.tasks.get', OTHER),
    );
    const [created] = await client.createTask(
      { parent: LAUNCHES, task: launchTask(LAUNCHES, 'h2') },
      as,
    );
    expect(created.name).toBe(`${LAUNCHES}/tasks/h2`);
  });
});

describe('npm run emulators -- cloud-tasks --iam-file --google-token-info --enforce-iam --serving-cert-dir', () => {
  it('serves TLS, authorizes the enqueuer and refuses a call without credentials', async () => {
    const metadata = await startMetadataServer({ serviceAccount: ADAPTER });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-iam-cli-'));
    const certificate = localServingCertificate(dir);
    fs.writeFileSync(
      path.join(dir, 'tasks.json'),
      JSON.stringify({ queues: [{ name: LAUNCHES }] }),
    );
    fs.writeFileSync(path.join(dir, 'iam.json'), JSON.stringify(iamConfig(metadata.uniqueId)));
    const cli = await startTracked({
      command: process.execPath,
      args: [
        path.join(ROOT, 'dist/emulators/pullsecret/cli.js'),
        'cloud-tasks',
        '--config',
        path.join(dir, 'tasks.json'),
        '--iam-file',
        path.join(dir, 'iam.json'),
        '--google-token-info',
        metadata.tokenInfoUrl,
        '--enforce-iam',
        '--serving-cert-dir',
        dir,
      ],
    });
    expect(cli.info).toMatchObject({ name: 'cloud-tasks', tls: true, iam: 'enforced' });
    const token = await metadataServerToken(metadata.endpoint);
    const endpoint = cli.info.endpoint as string;
    const adapter = new CloudTasksClient(
      tlsClientOptions(endpoint, certificate.caPem, () => token),
    );
    const anonymous = new CloudTasksClient(tlsClientOptions(endpoint, certificate.caPem));
    try {
      const [task] = await adapter.createTask(
        { parent: LAUNCHES, task: launchTask(LAUNCHES, 'i1') },
        NO_RETRY,
      );
      expect(task.name).toBe(`${LAUNCHES}/tasks/i1`);
      expect(await failure(adapter.getQueue({ name: LAUNCHES }, NO_RETRY))).toEqual(
        denied('cloudtasks.queues.get', LAUNCHES),
      );
      expect(await failure(anonymous.getQueue({ name: LAUNCHES }, NO_RETRY))).toEqual({
        code: status.UNAUTHENTICATED,
        details: MISSING_CREDENTIALS_MESSAGE,
      });
    } finally {
      await adapter.close();
      await anonymous.close();
      await cli.stop(2000);
      await metadata.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
