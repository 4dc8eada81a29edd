// The fleet operator's least privilege, tested with an identity that holds nothing else: the
// custom role Terraform grants `fleet_operators` on the launch queue (fleet-operator-role.json:
// cloudtasks.queues.pause, .resume, .get) lets the fleet command's own calls pause, resume and read
// that queue, and nothing more (no other queue, no task, no purge, no delete, no update). The
// adapter's grants (Cloud Tasks Enqueuer and its launch-task role) cannot pause it. The Cloud
// Tasks emulator checks each method's permission as Cloud Tasks documents it
// (https://cloud.google.com/tasks/docs/reference-access-control).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { status } from '@grpc/grpc-js';
import { CloudTasksClient } from '@google-cloud/tasks';
import type { ServingCertificate } from '../../../emulators/common/certificates';
import {
  startCloudTasksEmulator,
  type CloudTasksEmulator,
} from '../../../emulators/cloud-tasks/server';
import {
  startMetadataServer,
  type MetadataServerEmulator,
} from '../../../emulators/metadata-server/server';
import {
  launchQueues,
  launchQueueState,
  setLaunchQueueState,
} from '../../../functions/fleet/queue/queue-control';
import { NO_RETRY, TEST_LOCATION } from '../../helpers/cloud-tasks';
import { localServingCertificate, tlsClientOptions } from '../../helpers/google-tls';
import { metadataServerToken } from '../../helpers/metadata-token';
import { ROOT } from '../../helpers/run-process';

const OPERATOR = 'fleet-oncall@demo-project.iam.gserviceaccount.com';
const ADAPTER = 'pullsecret-adapter@demo-project.iam.gserviceaccount.com';
const LAUNCHES = `${TEST_LOCATION}/queues/pullsecret-launches`;
const OTHER = `${TEST_LOCATION}/queues/other`;
/** A management cluster's own launch queue (launch_queue.per_management_cluster). */
const MGMT_1 = `${LAUNCHES}-mgmt-1`;
const FLEET_QUEUES_ROLE = 'projects/demo-project/roles/pullSecretFleetQueues';
const FLEET_OPERATOR_ROLE = 'projects/demo-project/roles/pullSecretFleetOperator';
const LAUNCH_TASKS = 'projects/demo-project/roles/pullSecretLaunchTasks';

/** What Terraform's custom role holds: the file fleet-operators.tf reads. */
const ROLE_FILE = JSON.parse(
  fs.readFileSync(
    path.join(ROOT, 'terraform/modules/pullsecret-adapter/fleet-operator-role.json'),
    'utf8',
  ),
) as { permissions: string[]; listPermissions: string[] };
const ROLE_PERMISSIONS = ROLE_FILE.permissions;

async function code(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => 'OK',
    (error: { code?: number }) => status[error.code ?? status.UNKNOWN] ?? String(error.code),
  );
}

describe('fleet operator: the launch queue role and nothing else', () => {
  let metadata: MetadataServerEmulator;
  let dir: string;
  let certificate: ServingCertificate;
  let emulator: CloudTasksEmulator;
  const clients: CloudTasksClient[] = [];
  /** A client that calls with `email`'s token, from its own metadata listener. */
  const clientOf = async (email: string) => {
    const host = metadata.accounts.find((a) => a.email === email)!.host;
    const token = await metadataServerToken(`http://${host}`);
    const client = new CloudTasksClient(
      tlsClientOptions(emulator.endpoint, certificate.caPem, () => token),
    );
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    process.env.METADATA_SERVER_DETECTION = 'none';
    metadata = await startMetadataServer({
      serviceAccount: OPERATOR,
      additionalAccounts: [ADAPTER],
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleet-iam-'));
    certificate = localServingCertificate(dir);
    emulator = await startCloudTasksEmulator({
      queues: [{ name: LAUNCHES }, { name: MGMT_1 }, { name: OTHER }],
      dispatch: 'manual',
      iam: {
        projects: { 'demo-project': '123456789012' },
        serviceAccounts: Object.fromEntries(metadata.accounts.map((a) => [a.uniqueId, a.email])),
        customRoles: {
          [FLEET_OPERATOR_ROLE]: ROLE_PERMISSIONS,
          [FLEET_QUEUES_ROLE]: ROLE_FILE.listPermissions,
          [LAUNCH_TASKS]: ['cloudtasks.tasks.delete', 'cloudtasks.tasks.get'],
        },
        bindings: [
          {
            resource: LAUNCHES,
            role: FLEET_OPERATOR_ROLE,
            members: [`serviceAccount:${OPERATOR}`],
          },
          { resource: MGMT_1, role: FLEET_OPERATOR_ROLE, members: [`serviceAccount:${OPERATOR}`] },
          {
            resource: 'projects/demo-project',
            role: FLEET_QUEUES_ROLE,
            members: [`serviceAccount:${OPERATOR}`],
          },
          {
            resource: LAUNCHES,
            role: 'roles/cloudtasks.enqueuer',
            members: [`serviceAccount:${ADAPTER}`],
          },
          { resource: LAUNCHES, role: LAUNCH_TASKS, members: [`serviceAccount:${ADAPTER}`] },
        ],
      },
      googleTokenInfoUrl: metadata.tokenInfoUrl,
      enforceIam: true,
      servingCertificate: certificate,
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await emulator?.stop();
    await metadata?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the role is exactly pause, resume and get; on the project, list', () => {
    expect([...ROLE_PERMISSIONS].sort()).toEqual([
      'cloudtasks.queues.get',
      'cloudtasks.queues.pause',
      'cloudtasks.queues.resume',
    ]);
    expect(ROLE_FILE.listPermissions).toEqual(['cloudtasks.queues.list']);
  });

  it("finds the fleet's queue and each management cluster's, and pauses one management cluster alone", async () => {
    const operator = await clientOf(OPERATOR);
    expect(
      (await launchQueues(operator, LAUNCHES)).map((q) => [q.name, q.managementCluster]),
    ).toEqual([
      [LAUNCHES, undefined],
      [MGMT_1, 'mgmt-1'],
    ]);
    expect(await setLaunchQueueState(operator, MGMT_1, 'pause')).toBe('PAUSED');
    expect(emulator.book.queue(LAUNCHES).state).toBe('RUNNING');
    expect(await setLaunchQueueState(operator, MGMT_1, 'resume')).toBe('RUNNING');
  });

  it("the fleet command's calls pause, read and resume the launch queue as the operator", async () => {
    const operator = await clientOf(OPERATOR);
    expect(await setLaunchQueueState(operator, LAUNCHES, 'pause')).toBe('PAUSED');
    expect(await launchQueueState(operator, LAUNCHES)).toBe('PAUSED');
    expect(emulator.book.queue(LAUNCHES).state).toBe('PAUSED');
    expect(await setLaunchQueueState(operator, LAUNCHES, 'resume')).toBe('RUNNING');
    expect(emulator.book.queue(LAUNCHES).state).toBe('RUNNING');
  });

  it('and nothing else: no other queue, no task, no purge, delete or update', async () => {
    const operator = await clientOf(OPERATOR);
    const denied = {
      'pause another queue': operator.pauseQueue({ name: OTHER }, NO_RETRY),
      purge: operator.purgeQueue({ name: LAUNCHES }, NO_RETRY),
      'delete the queue': operator.deleteQueue({ name: LAUNCHES }, NO_RETRY),
      'update the queue': operator.updateQueue(
        { queue: { name: LAUNCHES, rateLimits: { maxDispatchesPerSecond: 500 } } },
        NO_RETRY,
      ),
      'list tasks': operator.listTasks({ parent: LAUNCHES }, NO_RETRY),
      'create a task': operator.createTask(
        { parent: LAUNCHES, task: { httpRequest: { url: 'https://example.com/' } } },
        NO_RETRY,
      ),
      'run a task': operator.runTask({ name: `${LAUNCHES}/tasks/t1` }, NO_RETRY),
    };
    const codes = Object.fromEntries(
      await Promise.all(
        Object.entries(denied).map(async ([what, call]) => [what, await code(call)]),
      ),
    );
    expect(codes).toEqual(
      Object.fromEntries(Object.keys(denied).map((what) => [what, 'PERMISSION_DENIED'])),
    );
    expect(emulator.book.queue(LAUNCHES).state).toBe('RUNNING');
  });

  it("the adapter's grants cannot pause the queue; the refusal names the operator's grant", async () => {
    const adapter = await clientOf(ADAPTER);
    await expect(setLaunchQueueState(adapter, LAUNCHES, 'pause')).rejects.toThrow(
      /Cloud Tasks PauseQueue on .*pullsecret-launches failed: PERMISSION_DENIED: .*cloudtasks\.queues\.pause.*Terraform fleet_operators/,
    );
    expect(emulator.book.queue(LAUNCHES).state).toBe('RUNNING');
  });
});
