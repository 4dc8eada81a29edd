import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { status } from '@grpc/grpc-js';
import { startCloudRunEmulator, type CloudRunEmulator } from '../../../emulators/cloud-run/server';
import { cloudRunClients, SCRIPTED_TASK, TEST_JOB } from '../../helpers/cloud-run';
import { waitFor } from '../../helpers/wait-for';

describe('Cloud Run Jobs emulator through the real JobsClient and ExecutionsClient', () => {
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloud-run-emulator-'));
  /** What an execution's task printed so far (its log file, written by the task itself). */
  const taskLog = (execution: string) => {
    const file = path.join(logDir, `${execution.split('/').pop()}.log`);
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  };
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
          logDir,
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
    await clients.tasks.close();
    await emulator.stop();
    fs.rmSync(logDir, { recursive: true, force: true });
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
  /** The execution's only task, listed as the reporter lists it. */
  const taskOf = async (execution: { name?: string | null }) => {
    const [tasks] = await clients.tasks.listTasks({ parent: execution.name! });
    expect(tasks).toHaveLength(1);
    return tasks[0]!;
  };
  type Condition = { type?: string | null; executionReason?: unknown; message?: string | null };
  const completed = (resource: { conditions?: Condition[] | null }) =>
    resource.conditions?.find((c) => c.type === 'Completed');

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
    expect(execution.conditions?.map((c) => `${c.type}:${c.state}`)).toEqual([
      'Completed:CONDITION_SUCCEEDED',
      'ResourcesAvailable:CONDITION_SUCCEEDED',
      'Started:CONDITION_SUCCEEDED',
    ]);
    expect(completed(execution)).toMatchObject({
      message: expect.stringMatching(/^Execution completed successfully in \d+\.\ds\.$/),
    });
    expect(completed(execution)?.executionReason).toBeUndefined();
    const task = await taskOf(execution);
    expect(task.name).toBe(`${execution.name}/tasks/${execution.name?.split('/').pop()}-task0`);
    expect(task).toMatchObject({
      execution: execution.name,
      index: 0,
      retried: 0,
      lastAttemptResult: { exitCode: 0, status: { code: 0 } },
    });
    const [byName] = await clients.tasks.getTask({ name: task.name! });
    expect(byName.uid).toBe(task.uid);
    await expect(
      clients.tasks.getTask({ name: `${execution.name}/tasks/missing-task0` }),
    ).rejects.toMatchObject({ code: status.NOT_FOUND });
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

  it('retries a failed task up to max_retries; counts tasks, the task counts its retries', async () => {
    const retried = await run('fail-once');
    expect(retried).toMatchObject({ succeededCount: 1, failedCount: 0, retriedCount: 1 });
    expect(retried.conditions?.map((c) => c.type)).toContain('Retry');
    expect(retried.conditions?.find((c) => c.type === 'Retry')).toMatchObject({
      state: 'CONDITION_SUCCEEDED',
      reason: 'IMMEDIATE_RETRY',
    });
    expect(await taskOf(retried)).toMatchObject({
      retried: 1,
      lastAttemptResult: { exitCode: 0, status: { code: 0 } },
    });
    const failed = await run('fail');
    expect(failed).toMatchObject({ succeededCount: 0, failedCount: 1, retriedCount: 1 });
    expect(completed(failed)).toMatchObject({
      state: 'CONDITION_FAILED',
      executionReason: 'NON_ZERO_EXIT_CODE',
      message: `Task ${failed.name?.split('/').pop()}-task0 failed with message: The container exited with an error.`,
    });
    expect(await taskOf(failed)).toMatchObject({
      retried: 1,
      lastAttemptResult: { exitCode: 3, status: { code: status.UNKNOWN } },
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
    expect(failed).toMatchObject({ succeededCount: 0, failedCount: 1, retriedCount: 0 });
    expect(completed(failed)?.executionReason).toBe('NON_ZERO_EXIT_CODE');
    expect((await taskOf(failed)).lastAttemptResult?.exitCode).toBe(127);
  });

  it('kills a task that exceeds its timeout or its memory limit', async () => {
    const timedOut = await run(
      'hang',
      'projects/demo-project/locations/us-central1/jobs/no-retries',
    );
    // The service stopped the task: no exit code, hence no NON_ZERO_EXIT_CODE; the task says why.
    expect(completed(timedOut)).toMatchObject({
      state: 'CONDITION_FAILED',
      message: expect.stringContaining('failed with message: The configured timeout was reached.'),
    });
    expect(completed(timedOut)?.executionReason).toBeUndefined();
    expect((await taskOf(timedOut)).lastAttemptResult).toMatchObject({
      exitCode: 0,
      status: { code: status.DEADLINE_EXCEEDED },
    });
    const oom = await run('hog');
    expect(completed(oom)).toMatchObject({
      executionReason: 'NON_ZERO_EXIT_CODE',
      message: expect.stringMatching(/Memory limit of 200 MiB exceeded/),
    });
    expect((await taskOf(oom)).lastAttemptResult).toMatchObject({
      exitCode: 137,
      status: { code: status.RESOURCE_EXHAUSTED },
    });
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
    expect(cancelled).toMatchObject({
      cancelledCount: 1,
      failedCount: 0,
      succeededCount: 0,
      retriedCount: 1,
    });
    expect(completed(cancelled)).toMatchObject({
      state: 'CONDITION_FAILED',
      executionReason: 'CANCELLED',
    });
    expect(await taskOf(cancelled)).toMatchObject({
      retried: 1,
      lastAttemptResult: { status: { code: status.CANCELLED } },
    });

    emulator.killNext(1, 0);
    const killed = await run('hang', 'projects/demo-project/locations/us-central1/jobs/no-retries');
    expect(completed(killed)?.executionReason).toBe('NON_ZERO_EXIT_CODE');
    expect((await taskOf(killed)).lastAttemptResult?.exitCode).toBe(128 + 9);
  });

  it('shows CANCELLING while a cancelled task is still stopping, then CANCELLED', async () => {
    const [operation] = await clients.jobs.runJob({
      name: TEST_JOB,
      overrides: { containerOverrides: [{ env: [{ name: 'TASK_BEHAVIOUR', value: 'stubborn' }] }] },
    });
    const name = (operation.metadata as { name: string }).name;
    // The task says when it ignores SIGTERM; a cancel before that would simply kill it.
    await waitFor('the task to install its SIGTERM handler', () =>
      taskLog(name).includes('{"sigterm":"ignored"}'),
    );
    await clients.executions.cancelExecution({ name });
    const [cancelling] = await clients.executions.getExecution({ name });
    expect(cancelling.reconciling).toBe(true);
    expect(completed(cancelling)).toMatchObject({
      state: 'CONDITION_RECONCILING',
      executionReason: 'CANCELLING',
    });
    await emulator.waitForExecution(name);
    const [cancelled] = await clients.executions.getExecution({ name });
    expect(completed(cancelled)).toMatchObject({
      state: 'CONDITION_FAILED',
      executionReason: 'CANCELLED',
    });
    expect(cancelled).toMatchObject({ cancelledCount: 1, failedCount: 0 });
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
