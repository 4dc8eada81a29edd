import { beforeWildcard } from '../../../emulators/common/iam/iam-guard';
import { cloudRunPermissions } from '../../../emulators/cloud-run/iam/rpc-permissions';
import { cloudTasksPermissions } from '../../../emulators/cloud-tasks/iam/rpc-permissions';

// The permission tables of the Cloud Run and Cloud Tasks emulators (each cites its sources):
// which permission, on which resource, for the request shapes grpc-js decodes.
const LOCATION = 'projects/p-demo/locations/us-central1';
const JOB = `${LOCATION}/jobs/job`;
const QUEUE = `${LOCATION}/queues/q`;

describe('Cloud Run: the permission of each RPC', () => {
  it.each([
    ['GetJob', { name: JOB }, 'run.jobs.get', JOB],
    ['ListJobs', { parent: LOCATION }, 'run.jobs.list', LOCATION],
    ['RunJob', { name: JOB }, 'run.jobs.run', JOB],
    ['GetExecution', { name: `${JOB}/executions/e` }, 'run.executions.get', `${JOB}/executions/e`],
    ['ListExecutions', { parent: JOB }, 'run.executions.list', JOB],
    ['ListExecutions', { parent: `${LOCATION}/jobs/-` }, 'run.executions.list', LOCATION],
    [
      'CancelExecution',
      { name: `${JOB}/executions/e` },
      'run.executions.cancel',
      `${JOB}/executions/e`,
    ],
    [
      'GetTask',
      { name: `${JOB}/executions/e/tasks/t` },
      'run.tasks.get',
      `${JOB}/executions/e/tasks/t`,
    ],
    ['ListTasks', { parent: `${JOB}/executions/-` }, 'run.tasks.list', JOB],
    [
      'GetOperation',
      { name: `${LOCATION}/operations/o` },
      'run.operations.get',
      `${LOCATION}/operations/o`,
    ],
    ['ListOperations', { name: LOCATION }, 'run.operations.list', LOCATION],
    [
      'DeleteOperation',
      { name: `${LOCATION}/operations/o` },
      'run.operations.delete',
      `${LOCATION}/operations/o`,
    ],
  ])('%s %j: %s on %s', (method, request, permission, resource) => {
    expect(cloudRunPermissions(method, request)).toEqual([{ permission, resource }]);
  });

  it('RunJob with overrides also needs run.jobs.runWithOverrides on the job', () => {
    expect(cloudRunPermissions('RunJob', { name: JOB, overrides: {} })).toEqual([
      { permission: 'run.jobs.run', resource: JOB },
      { permission: 'run.jobs.runWithOverrides', resource: JOB },
    ]);
  });

  it('nothing to check for a malformed or missing name (the method refuses it) or an unknown method', () => {
    expect(cloudRunPermissions('RunJob', { name: 'jobs/job' })).toEqual([]);
    expect(cloudRunPermissions('GetJob', {})).toEqual([]);
    expect(cloudRunPermissions('CreateJob', { parent: LOCATION })).toEqual([]);
  });
});

describe('Cloud Tasks: the permission of each RPC', () => {
  it.each([
    ['ListQueues', { parent: LOCATION }, 'cloudtasks.queues.list', LOCATION],
    ['GetQueue', { name: QUEUE }, 'cloudtasks.queues.get', QUEUE],
    [
      'CreateQueue',
      { parent: LOCATION, queue: { name: QUEUE } },
      'cloudtasks.queues.create',
      LOCATION,
    ],
    ['UpdateQueue', { queue: { name: QUEUE } }, 'cloudtasks.queues.update', QUEUE],
    ['DeleteQueue', { name: QUEUE }, 'cloudtasks.queues.delete', QUEUE],
    ['PurgeQueue', { name: QUEUE }, 'cloudtasks.queues.purge', QUEUE],
    ['PauseQueue', { name: QUEUE }, 'cloudtasks.queues.pause', QUEUE],
    ['ResumeQueue', { name: QUEUE }, 'cloudtasks.queues.resume', QUEUE],
    ['ListTasks', { parent: QUEUE }, 'cloudtasks.tasks.list', QUEUE],
    ['GetTask', { name: `${QUEUE}/tasks/t` }, 'cloudtasks.tasks.get', QUEUE],
    ['CreateTask', { parent: QUEUE, task: {} }, 'cloudtasks.tasks.create', QUEUE],
    ['DeleteTask', { name: `${QUEUE}/tasks/t` }, 'cloudtasks.tasks.delete', QUEUE],
    ['RunTask', { name: `${QUEUE}/tasks/t` }, 'cloudtasks.tasks.run', `${QUEUE}/tasks/t`],
  ])('%s %j: %s on %s', (method, request, permission, resource) => {
    expect(cloudTasksPermissions(method, request)).toEqual([{ permission, resource }]);
  });

  it('FULL views need cloudtasks.tasks.fullView; a task with a token needs actAs on its account', () => {
    expect(
      cloudTasksPermissions('GetTask', { name: `${QUEUE}/tasks/t`, response_view: 'FULL' }),
    ).toEqual([
      { permission: 'cloudtasks.tasks.get', resource: QUEUE },
      { permission: 'cloudtasks.tasks.fullView', resource: `${QUEUE}/tasks/t` },
    ]);
    const email = 'launcher@p-demo.iam.gserviceaccount.com';
    expect(
      cloudTasksPermissions('CreateTask', {
        parent: QUEUE,
        task: { http_request: { oidc_token: { service_account_email: email } } },
      }),
    ).toEqual([
      { permission: 'cloudtasks.tasks.create', resource: QUEUE },
      {
        permission: 'iam.serviceAccounts.actAs',
        resource: `projects/p-demo/serviceAccounts/${email}`,
        named: email,
      },
    ]);
  });

  it('nothing to check for a malformed name or an unknown method', () => {
    expect(cloudTasksPermissions('GetTask', { name: QUEUE })).toEqual([]);
    expect(cloudTasksPermissions('GetIamPolicy', { resource: QUEUE })).toEqual([]);
  });
});

describe('beforeWildcard', () => {
  it('cuts a name before its first "-" id', () => {
    expect(beforeWildcard(`${LOCATION}/jobs/-/executions/-`)).toBe(LOCATION);
    expect(beforeWildcard(`${JOB}/executions/-`)).toBe(JOB);
    expect(beforeWildcard(JOB)).toBe(JOB);
  });
});
