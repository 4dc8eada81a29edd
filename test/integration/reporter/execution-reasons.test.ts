import { CloudRunExecutionReader } from '../../../shared/executions/cloud-run-execution-reader';
import { planFromExecution } from '../../../shared/executions/execution-report';
import { startCloudRunEmulator, type CloudRunEmulator } from '../../../emulators/cloud-run/server';
import { AdapterError } from '../../../shared/errors';
import { cloudRunClients, SCRIPTED_TASK, TEST_JOB } from '../../helpers/cloud-run';
import { RecordingLogger } from '../../helpers/recording-logger';
import { matchesLoggingFilter } from '../../helpers/logging-filter';
import { executionsEndedAbnormallyFilter } from '../../helpers/terraform-metric-filter';

/**
 * The reporter's failure reasons come from the execution's conditions and its task's last attempt,
 * read through the real ExecutionsClient and TasksClient from executions the emulator really ran.
 */
describe('reporter: execution failure reasons from Cloud Run conditions (emulator)', () => {
  let emulator: CloudRunEmulator;
  let clients: ReturnType<typeof cloudRunClients>;
  let reader: CloudRunExecutionReader;
  const logger = new RecordingLogger();
  /** The execution-finished entry the emulator writes for each execution, as the sink routes it. */
  const finishedEntries = new Map<string, Record<string, unknown>>();

  beforeAll(async () => {
    emulator = await startCloudRunEmulator({
      jobs: [
        {
          name: TEST_JOB,
          command: [process.execPath, SCRIPTED_TASK],
          maxRetries: 0,
          timeoutSeconds: 1,
          memoryLimitMiB: 200,
        },
      ],
      onExecutionFinished: (entry, execution) => void finishedEntries.set(execution.name, entry),
    });
    clients = cloudRunClients(emulator.endpoint);
    reader = new CloudRunExecutionReader(clients.executions, {
      timeoutMs: 5000,
      retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
      tasks: clients.tasks,
      logger,
    });
  });
  afterAll(async () => {
    await clients.jobs.close();
    await clients.executions.close();
    await clients.tasks.close();
    await emulator.stop();
  });

  const launch = async (behaviour: string): Promise<string> => {
    const [operation] = await clients.jobs.runJob({
      name: TEST_JOB,
      overrides: {
        containerOverrides: [
          {
            env: [
              { name: 'TASK_BEHAVIOUR', value: behaviour },
              { name: 'CLUSTER_ID', value: 'cls-1' },
              { name: 'GENERATION', value: '2' },
            ],
          },
        ],
      },
    });
    return (operation.metadata as { name: string }).name;
  };
  const reportFor = async (name: string) => {
    await emulator.waitForExecution(name);
    const summary = await reader.read(name);
    if (!summary) throw new Error(`${name} not found`);
    return planFromExecution(summary);
  };

  it.each([
    ['exit-2', 'NonZeroExit', 'InvalidConfiguration', 'permanent', 'exit code 2'],
    ['exit-3', 'NonZeroExit', 'JobFailed', 'permanent', 'exit code 3'],
    ['exit-4', 'NonZeroExit', 'JobFailed', 'transient', 'exit code 4'],
    ['exit-1', 'NonZeroExit', 'InternalError', 'transient', 'exit code 1'],
    ['hang', 'Timeout', 'JobFailed', 'transient', 'The configured timeout was reached.'],
    ['hog', 'OOMKilled', 'JobFailed', 'transient', 'Memory limit of 200 MiB exceeded'],
  ])('%s is reported as %s / %s (%s)', async (behaviour, executionReason, reason, kind, text) => {
    const plan = await reportFor(await launch(behaviour));
    expect(plan).toMatchObject({
      clusterId: 'cls-1',
      generation: 2,
      outcome: { kind: 'failed', executionReason, reason, failureKind: kind },
    });
    expect((plan as { outcome: { message: string } }).outcome.message).toContain(text);
  });

  it('a task killed by a signal is Killed; a cancelled execution is Cancelled', async () => {
    emulator.killNext(1, 200);
    const killed = await reportFor(await launch('hang'));
    expect(killed).toMatchObject({
      outcome: { executionReason: 'Killed', message: expect.stringContaining('exit code 137') },
    });

    const name = await launch('hang');
    while (!emulator.executions.get(name)?.pid) await new Promise((r) => setTimeout(r, 10));
    await clients.executions.cancelExecution({ name });
    expect(await reportFor(name)).toMatchObject({
      outcome: { kind: 'failed', executionReason: 'Cancelled', failureKind: 'transient' },
    });
  });

  it('ListTasks denied: reported from the execution conditions alone, with a warning; unavailable: retried later', async () => {
    const name = await launch('exit-3');
    await emulator.waitForExecution(name);
    emulator.faults.add({ match: 'ListTasks', status: 'PERMISSION_DENIED' });
    expect(planFromExecution((await reader.read(name))!)).toMatchObject({
      outcome: { executionReason: 'NonZeroExit', reason: 'JobFailed', failureKind: 'transient' },
    });
    expect(JSON.stringify(logger.lines)).toContain("Reporting without the task's exit code");

    emulator.faults.add({ match: 'ListTasks', status: 'UNAVAILABLE', count: 2 });
    const failure = await reader.read(name).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AdapterError);
    expect((failure as AdapterError).kind).toBe('transient');
  });

  // Issue 29 §3: executions the platform ends (OOM, timeout, a kill, a cancellation) print no result
  // line; Terraform's executions_ended_abnormally metric counts their system_event entries instead.
  it("Terraform's executions_ended_abnormally filter matches the entries of killed, timed-out, OOM and cancelled executions, not a success", async () => {
    const metricFilter = await executionsEndedAbnormallyFilter(TEST_JOB);
    const entryOf = async (name: string) => {
      await emulator.waitForExecution(name);
      for (let i = 0; i < 100 && !finishedEntries.has(name); i++)
        await new Promise((r) => setTimeout(r, 20));
      return finishedEntries.get(name)!;
    };
    const ended = {
      oom: await entryOf(await launch('hog')),
      timeout: await entryOf(await launch('hang')),
      succeeded: await entryOf(await launch('succeed')),
    };
    emulator.killNext(1, 200);
    const killed = await entryOf(await launch('hang'));
    const cancelledName = await launch('hang');
    while (!emulator.executions.get(cancelledName)?.pid)
      await new Promise((r) => setTimeout(r, 10));
    await clients.executions.cancelExecution({ name: cancelledName });
    expect(matchesLoggingFilter(metricFilter, await entryOf(cancelledName))).toBe(true);
    expect(matchesLoggingFilter(metricFilter, ended.oom)).toBe(true);
    expect(matchesLoggingFilter(metricFilter, ended.timeout)).toBe(true);
    expect(matchesLoggingFilter(metricFilter, killed)).toBe(true);
    expect(matchesLoggingFilter(metricFilter, ended.succeeded)).toBe(false);
  });

  it('a success reads no tasks', async () => {
    const name = await launch('succeed');
    const before = emulator.requests.list().filter((r) => r.method === 'ListTasks').length;
    expect(await reportFor(name)).toMatchObject({ outcome: { kind: 'succeeded' } });
    expect(emulator.requests.list().filter((r) => r.method === 'ListTasks')).toHaveLength(before);
  });
});
