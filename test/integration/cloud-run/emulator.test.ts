import { status } from '@grpc/grpc-js';
import { startCloudRunEmulator, type CloudRunEmulator } from '../../../emulators/cloud-run/server';
import { cloudRunClients, SCRIPTED_TASK, TEST_JOB } from '../../helpers/cloud-run';

describe('Cloud Run Jobs emulator through the real JobsClient and ExecutionsClient', () => {
  let emulator: CloudRunEmulator;
  let clients: ReturnType<typeof cloudRunClients>;
  const finished: Record<string, unknown>[] = [];

  beforeAll(async () => {
    emulator = await startCloudRunEmulator({
      jobs: [
        {
          name: TEST_JOB,
          command: [process.execPath, SCRIPTED_TASK],
          env: { TASK_BEHAVIOUR: 'succeed' },
          maxRetries: 1,
          timeoutSeconds: 30,
          memoryLimitMiB: 200,
        },
        {
          name: 'projects/demo-project/locations/us-central1/jobs/no-retries',
          command: [process.execPath, SCRIPTED_TASK],
          maxRetries: 0,
          timeoutSeconds: 1,
        },
        {
          name: 'projects/demo-project/locations/us-central1/jobs/missing-entrypoint',
          command: ['/nonexistent/pull-secret-job'],
          maxRetries: 0,
          timeoutSeconds: 30,
        },
      ],
      onExecutionFinished: (entry) => {
        finished.push(entry);
      },
    });
    clients = cloudRunClients(emulator.endpoint);
  });
  afterAll(async () => {
    await clients.jobs.close();
    await clients.executions.close();
    await emulator.stop();
  });

  const run = async (behaviour: string, job = TEST_JOB) => {
    const [operation] = await clients.jobs.runJob({
      name: job,
      overrides: {
        containerOverrides: [
          {
            env: [
              { name: 'TASK_BEHAVIOUR', value: behaviour },
              { name: 'CLUSTER_ID', value: 'cls-1' },
            ],
          },
        ],
      },
    });
    const name = (operation.metadata as { name?: string } | undefined)?.name;
    if (!name) throw new Error('RunJob returned no execution name in its metadata');
    await emulator.waitForExecution(name);
    const [execution] = await clients.executions.getExecution({ name });
    return execution;
  };

  it('GetJob and ListJobs describe the declared jobs; unknown jobs are NOT_FOUND', async () => {
    const [job] = await clients.jobs.getJob({ name: TEST_JOB });
    expect(job.name).toBe(TEST_JOB);
    const [list] = await clients.jobs.listJobs({
      parent: 'projects/demo-project/locations/us-central1',
    });
    expect(list).toHaveLength(3);
    await expect(
      clients.jobs.runJob({ name: 'projects/demo-project/locations/us-central1/jobs/missing' }),
    ).rejects.toMatchObject({ code: status.NOT_FOUND });
  });

  it('runs the command with the overrides and CLOUD_RUN_* variables, and reports success', async () => {
    const execution = await run('succeed');
    expect(execution.name).toMatch(
      new RegExp(`^${TEST_JOB}/executions/pullsecret-job-[a-z0-9]{5}$`),
    );
    expect(execution).toMatchObject({
      succeededCount: 1,
      failedCount: 0,
      runningCount: 0,
      reconciling: false,
    });
    expect(execution.completionTime?.seconds).toBeTruthy();
    expect(execution.conditions?.[0]).toMatchObject({
      type: 'Completed',
      state: 'CONDITION_SUCCEEDED',
    });
    expect(execution.template?.containers?.[0]?.env).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'CLUSTER_ID', value: 'cls-1' })]),
    );
    const entry = finished.at(-1) as {
      protoPayload: { methodName: string; status: { code: number }; resourceName: string };
      resource: { type: string };
    };
    expect(entry.protoPayload).toMatchObject({ methodName: '/Jobs.RunJob', status: { code: 0 } });
    expect(entry.protoPayload.resourceName).toBe(
      `namespaces/demo-project/executions/${execution.name?.split('/').pop()}`,
    );
    expect(entry.resource.type).toBe('cloud_run_job');
  });

  it('retries a failed task up to max_retries', async () => {
    const retried = await run('fail-once');
    expect(retried).toMatchObject({ succeededCount: 1, retriedCount: 1 });
    const failed = await run('fail');
    expect(failed).toMatchObject({ succeededCount: 0, failedCount: 1, retriedCount: 1 });
    expect(failed.conditions?.[0]).toMatchObject({
      state: 'CONDITION_FAILED',
      executionReason: 'NON_ZERO_EXIT_CODE',
      message: expect.stringContaining('failed with exit code 3 (after 2 attempts)'),
    });
    expect(
      (finished.at(-1) as { protoPayload: { status: { code: number } } }).protoPayload.status.code,
    ).not.toBe(0);
  });

  it('fails at once, without waiting for the timeout, when the command cannot start', async () => {
    const failed = await run(
      'succeed',
      'projects/demo-project/locations/us-central1/jobs/missing-entrypoint',
    );
    expect(failed).toMatchObject({ succeededCount: 0, failedCount: 1 });
    expect(failed.conditions?.[0]?.message).toContain('failed with exit code 127');
  });

  it('kills a task that exceeds its timeout or its memory limit', async () => {
    const timedOut = await run(
      'hang',
      'projects/demo-project/locations/us-central1/jobs/no-retries',
    );
    expect(timedOut.conditions?.[0]?.message).toContain('timed out after 1 seconds');
    const oom = await run('hog');
    expect(oom.conditions?.[0]?.message).toMatch(/Memory limit of 200 MiB exceeded/);
  });

  it('reports a task killed by SIGKILL, and cancels executions', async () => {
    const [operation] = await clients.jobs.runJob({
      name: TEST_JOB,
      overrides: { containerOverrides: [{ env: [{ name: 'TASK_BEHAVIOUR', value: 'hang' }] }] },
    });
    const name = (operation.metadata as { name: string }).name;
    while (!emulator.executions.get(name)?.pid) await new Promise((r) => setTimeout(r, 10));
    expect(emulator.kill(name, 'SIGKILL')).toBe(true);
    while (emulator.executions.get(name)?.retriedCount === 0)
      await new Promise((r) => setTimeout(r, 10));
    while (!emulator.executions.get(name)?.pid) await new Promise((r) => setTimeout(r, 10));
    await clients.executions.cancelExecution({ name });
    await emulator.waitForExecution(name);
    const [cancelled] = await clients.executions.getExecution({ name });
    expect(cancelled).toMatchObject({ cancelledCount: 1, retriedCount: 1 });
    expect(cancelled.conditions?.[0]).toMatchObject({
      state: 'CONDITION_FAILED',
      executionReason: 'CANCELLED',
    });

    emulator.killNext(1, 0);
    const killed = await run('hang', 'projects/demo-project/locations/us-central1/jobs/no-retries');
    expect(killed.conditions?.[0]?.message).toContain('terminated by signal SIGKILL');
  });

  it('serves the operation and injected faults', async () => {
    const [operation] = await clients.jobs.runJob({ name: TEST_JOB });
    const latest = await clients.jobs.checkRunJobProgress(operation.name!);
    expect(latest.name).toBe(operation.name);

    emulator.faults.add({ match: 'RunJob', status: 'UNAVAILABLE' });
    await expect(clients.jobs.runJob({ name: TEST_JOB }, { retry: null })).rejects.toMatchObject({
      code: status.UNAVAILABLE,
    });
    const [executions] = await clients.executions.listExecutions({ parent: TEST_JOB });
    expect(executions.length).toBeGreaterThan(3);
  });
});
