import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { status } from '@grpc/grpc-js';
import { startCloudRunEmulator, type CloudRunEmulator } from '../../../emulators/cloud-run/server';
import { cloudRunClients, SCRIPTED_TASK, TEST_JOB } from '../../helpers/cloud-run';
import { waitFor } from '../../helpers/wait-for';

// Executions of several tasks, as Cloud Run runs them (https://cloud.google.com/run/docs/create-jobs,
// https://cloud.google.com/run/docs/configuring/parallelism): every index once, at most
// `parallelism` at once, each task with its own retries, the execution failed when any task failed
// once all have run, its counts following its tasks; through the real @google-cloud/run clients.
const LOCATION = 'projects/demo-project/locations/us-central1';
const TWO_TASKS_JOB = `${LOCATION}/jobs/two-tasks`;
const IN_PROCESS_JOB = `${LOCATION}/jobs/in-process`;

type ShardLine = {
  shard: 'start' | 'end';
  index: number;
  count: number;
  attempt: number;
  at: number;
};

describe('Cloud Run emulator: an execution of several tasks', () => {
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloud-run-tasks-'));
  /** What an execution's tasks printed (one log file per execution, every task appending). */
  const shardLines = (execution: string): ShardLine[] => {
    const file = path.join(logDir, `${execution.split('/').pop()}.log`);
    if (!fs.existsSync(file)) return [];
    return fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('{"shard"'))
      .map((line) => JSON.parse(line) as ShardLine);
  };
  /** The most tasks whose start..end spans overlap at one instant. */
  const mostAtOnce = (lines: ShardLine[]) => {
    const events = lines
      .map((l) => ({ at: l.at, delta: l.shard === 'start' ? 1 : -1 }))
      // At one millisecond an end counts before a start: the spans only touch.
      .sort((a, b) => a.at - b.at || a.delta - b.delta);
    let now = 0;
    let most = 0;
    for (const e of events) most = Math.max(most, (now += e.delta));
    return most;
  };
  let emulator: CloudRunEmulator;
  let clients: ReturnType<typeof cloudRunClients>;
  const finished: Record<string, unknown>[] = [];
  const inProcessEnvs: Record<string, string>[] = [];
  let inProcessRunning = 0;
  let inProcessMost = 0;

  beforeAll(async () => {
    emulator = await startCloudRunEmulator({
      jobs: [
        {
          name: TEST_JOB,
          command: [process.execPath, SCRIPTED_TASK],
          env: { TASK_BEHAVIOUR: 'shard' },
          logDir,
          maxRetries: 1,
          timeoutSeconds: 30,
          parallelism: 2,
        },
        {
          name: TWO_TASKS_JOB,
          command: [process.execPath, SCRIPTED_TASK],
          env: { TASK_BEHAVIOUR: 'shard', TASK_MS: '50' },
          logDir,
          maxRetries: 0,
          taskCount: 2,
        },
        { name: IN_PROCESS_JOB, command: ['/bin/false'], maxRetries: 0, parallelism: 3 },
      ],
      inProcessTasks: {
        [IN_PROCESS_JOB]: async (env) => {
          inProcessEnvs.push({ ...env });
          inProcessMost = Math.max(inProcessMost, ++inProcessRunning);
          await new Promise((r) => setTimeout(r, 30));
          inProcessRunning--;
          return 0;
        },
      },
      maxParallelTasks: 4,
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

  const start = async (
    job: string,
    env: Record<string, string> = {},
    taskCount?: number,
  ): Promise<string> => {
    const [operation] = await clients.jobs.runJob({
      name: job,
      overrides: {
        ...(taskCount !== undefined ? { taskCount } : {}),
        containerOverrides: [
          { env: Object.entries(env).map(([name, value]) => ({ name, value })) },
        ],
      },
    });
    const name = (operation.metadata as { name?: string } | undefined)?.name;
    if (!name) throw new Error('RunJob returned no execution name in its metadata');
    return name;
  };
  const finish = async (name: string) => {
    await emulator.waitForExecution(name);
    const [execution] = await clients.executions.getExecution({ name });
    return execution;
  };
  type Condition = { type?: string | null; executionReason?: unknown; message?: string | null };
  const completed = (resource: { conditions?: Condition[] | null }) =>
    resource.conditions?.find((c) => c.type === 'Completed');
  const finishedEntriesOf = (name: string) =>
    finished.filter(
      (e) =>
        (e as { protoPayload: { resourceName: string } }).protoPayload.resourceName ===
        `namespaces/demo-project/executions/${name.split('/').pop()}`,
    ) as { protoPayload: { status: { code: number }; response: { status: unknown } } }[];

  it('runs every index once, never more than `parallelism` at once, and counts the tasks', async () => {
    const name = await start(TEST_JOB, {}, 3);
    const [running] = await clients.executions.getExecution({ name });
    expect(running).toMatchObject({ taskCount: 3, parallelism: 2 });
    const execution = await finish(name);
    expect(execution).toMatchObject({
      taskCount: 3,
      parallelism: 2,
      succeededCount: 3,
      failedCount: 0,
      runningCount: 0,
      cancelledCount: 0,
      retriedCount: 0,
      reconciling: false,
    });
    expect(completed(execution)).toMatchObject({
      state: 'CONDITION_SUCCEEDED',
      message: expect.stringMatching(/^Execution completed successfully in \d+\.\ds\.$/),
    });
    const lines = shardLines(name);
    const starts = lines.filter((l) => l.shard === 'start');
    expect(starts.map((l) => l.index).sort()).toEqual([0, 1, 2]);
    expect(starts.every((l) => l.count === 3 && l.attempt === 0)).toBe(true);
    // (That two did overlap is shown by the cancel below, which waits for two running.)
    expect(mostAtOnce(lines)).toBeLessThanOrEqual(2);

    const [tasks] = await clients.tasks.listTasks({ parent: name });
    const short = name.split('/').pop();
    expect(tasks.map((t) => [t.index, t.name])).toEqual(
      [0, 1, 2].map((i) => [i, `${name}/tasks/${short}-task${i}`]),
    );
    for (const task of tasks)
      expect(task).toMatchObject({
        execution: name,
        retried: 0,
        reconciling: false,
        lastAttemptResult: { exitCode: 0, status: { code: 0 } },
      });
    const [third] = await clients.tasks.getTask({ name: `${name}/tasks/${short}-task2` });
    expect(third.index).toBe(2);
    await expect(
      clients.tasks.getTask({ name: `${name}/tasks/${short}-task3` }),
    ).rejects.toMatchObject({ code: status.NOT_FOUND });
    // ListExecutions shows the same counts.
    const [listed] = await clients.executions.listExecutions({ parent: TEST_JOB });
    expect(listed.find((e) => e.name === name)).toMatchObject({ taskCount: 3, succeededCount: 3 });

    const entries = finishedEntriesOf(name);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.protoPayload.status.code).toBe(0);
    expect(entries[0]!.protoPayload.response.status).toMatchObject({
      succeededCount: 3,
      failedCount: 0,
      cancelledCount: 0,
    });
  });

  it('retries a failing task on its own, runs the others, then fails the execution', async () => {
    const name = await start(TEST_JOB, { FAIL_INDEX: '1' }, 3);
    const execution = await finish(name);
    expect(execution).toMatchObject({
      succeededCount: 2,
      failedCount: 1,
      cancelledCount: 0,
      retriedCount: 1,
    });
    const short = name.split('/').pop();
    expect(completed(execution)).toMatchObject({
      state: 'CONDITION_FAILED',
      executionReason: 'NON_ZERO_EXIT_CODE',
      message: `Task ${short}-task1 failed with message: The container exited with an error.`,
    });
    const starts = shardLines(name).filter((l) => l.shard === 'start');
    expect(starts.map((l) => `${l.index}:${l.attempt}`).sort()).toEqual([
      '0:0',
      '1:0',
      '1:1',
      '2:0',
    ]);
    const [tasks] = await clients.tasks.listTasks({ parent: name });
    expect(tasks.map((t) => [t.index, t.retried, t.lastAttemptResult?.exitCode])).toEqual([
      [0, 0, 0],
      [1, 1, 3],
      [2, 0, 0],
    ]);
    const entries = finishedEntriesOf(name);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.protoPayload.status.code).not.toBe(0);
    expect(entries[0]!.protoPayload.response.status).toMatchObject({
      succeededCount: 2,
      failedCount: 1,
    });
  });

  it('cancels the running tasks and the pending one', async () => {
    const name = await start(TEST_JOB, { TASK_BEHAVIOUR: 'hang' }, 3);
    await waitFor(
      'two tasks running',
      () => emulator.executions.get(name)!.tasks.filter((t) => t.pid !== undefined).length === 2,
    );
    const [running] = await clients.executions.getExecution({ name });
    expect(running).toMatchObject({ runningCount: 2, succeededCount: 0, reconciling: true });
    const [pending] = await clients.tasks.getTask({
      name: `${name}/tasks/${name.split('/').pop()}-task2`,
    });
    expect(pending.conditions?.[0]?.state).toBe('CONDITION_PENDING');
    await clients.executions.cancelExecution({ name });
    const cancelled = await finish(name);
    expect(cancelled).toMatchObject({
      cancelledCount: 3,
      failedCount: 0,
      succeededCount: 0,
      runningCount: 0,
    });
    expect(completed(cancelled)).toMatchObject({
      state: 'CONDITION_FAILED',
      executionReason: 'CANCELLED',
    });
    const entries = finishedEntriesOf(name);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.protoPayload.status.code).toBe(status.CANCELLED);
  });

  it("runs the job's own task count, and refuses a task count out of Cloud Run's range", async () => {
    const name = await start(TWO_TASKS_JOB);
    const execution = await finish(name);
    // parallelism 0 (unset): as many as possible, never more than the task count.
    expect(execution).toMatchObject({ taskCount: 2, parallelism: 2, succeededCount: 2 });
    const [job] = await clients.jobs.getJob({ name: TWO_TASKS_JOB });
    expect(job.template).toMatchObject({ taskCount: 2, parallelism: 0 });

    for (const taskCount of [10_001, -1])
      await expect(start(TEST_JOB, {}, taskCount)).rejects.toMatchObject({
        code: status.INVALID_ARGUMENT,
        details: expect.stringContaining(
          'overrides.task_count: must be an integer from 1 to 10000',
        ),
      });
    const rest = await fetch(`${emulator.apiUrl}/v2/${TEST_JOB}:run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
      body: JSON.stringify({ overrides: { taskCount: 10_001 } }),
    });
    expect(rest.status).toBe(400);
    expect(await rest.json()).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
    const ok = await fetch(`${emulator.apiUrl}/v2/${TEST_JOB}:run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
      body: JSON.stringify({
        overrides: {
          taskCount: 2,
          containerOverrides: [{ env: [{ name: 'TASK_MS', value: '20' }] }],
        },
      }),
    });
    expect(ok.status).toBe(200);
    const operation = (await ok.json()) as { metadata: { name: string; taskCount: number } };
    expect(operation.metadata.taskCount).toBe(2);
    expect((await finish(operation.metadata.name)).succeededCount).toBe(2);
  });

  it('runs in-process tasks with their index, at most `parallelism` at once', async () => {
    const name = await start(IN_PROCESS_JOB, {}, 7);
    const execution = await finish(name);
    expect(execution).toMatchObject({ taskCount: 7, parallelism: 3, succeededCount: 7 });
    expect(inProcessEnvs.map((env) => Number(env.CLOUD_RUN_TASK_INDEX)).sort()).toEqual([
      0, 1, 2, 3, 4, 5, 6,
    ]);
    expect(inProcessEnvs.every((env) => env.CLOUD_RUN_TASK_COUNT === '7')).toBe(true);
    expect(inProcessMost).toBe(3);
  });
});
