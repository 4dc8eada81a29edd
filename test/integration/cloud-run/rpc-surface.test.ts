import { status } from '@grpc/grpc-js';
import { startCloudRunEmulator, type CloudRunEmulator } from '../../../emulators/cloud-run/server';
import { cloudRunClients, TEST_JOB } from '../../helpers/cloud-run';

const OTHER_JOB = 'projects/demo-project/locations/us-central1/jobs/other-job';
/** A job whose entrypoint exits 0 only when its args are exactly `doctor --all-projects`. */
const ARGS_JOB = 'projects/demo-project/locations/us-central1/jobs/args-job';

/**
 * The Cloud Run emulator's RPC surface as the adapter uses it, through the real clients:
 * RunJob's validation of overrides (Cloud Run's limits and reserved names), ListExecutions
 * (newest first, paged, with the overrides in each execution's template) and GetExecution.
 */
describe('Cloud Run emulator: RunJob validation, ListExecutions, GetExecution', () => {
  let emulator: CloudRunEmulator;
  let clients: ReturnType<typeof cloudRunClients>;

  beforeAll(async () => {
    emulator = await startCloudRunEmulator({
      jobs: [
        { name: TEST_JOB, command: ['/bin/true'], maxRetries: 0, env: { BASE: 'from-job' } },
        { name: OTHER_JOB, command: ['/bin/true'], maxRetries: 0 },
        {
          name: ARGS_JOB,
          command: [
            process.execPath,
            '-e',
            'process.exit(process.argv.slice(1).join(" ") === "doctor --all-projects" ? 0 : 3)',
          ],
          args: ['run-job', 'pull-secret'],
          maxRetries: 0,
        },
      ],
    });
    clients = cloudRunClients(emulator.endpoint);
  });
  afterAll(async () => {
    await clients.jobs.close();
    await clients.executions.close();
    await emulator.stop();
  });

  const runWith = async (
    env: { name: string; value?: string }[],
    extra: { name?: string } = {},
    job = TEST_JOB,
  ) => {
    const [operation] = await clients.jobs.runJob({
      name: job,
      overrides: { containerOverrides: [{ ...extra, env }] },
    });
    return (operation.metadata as { name: string }).name;
  };
  const rejection = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected INVALID_ARGUMENT');
      },
      (error: { code?: number; details?: string }) => error,
    );

  it.each([
    ['CLOUD_RUN_JOB'],
    ['CLOUD_RUN_EXECUTION'],
    ['CLOUD_RUN_TASK_INDEX'],
    ['CLOUD_RUN_TASK_ATTEMPT'],
    ['K_SERVICE'],
    ['PORT'],
  ])('rejects the reserved env name %s with the message Cloud Run gives', async (name) => {
    const error = await rejection(runWith([{ name, value: 'x' }]));
    expect(error.code).toBe(status.INVALID_ARGUMENT);
    expect(error.details).toBe(
      `overrides.container_overrides[0].env: The following reserved env names were provided: ${name}. These values are automatically set by the system.`,
    );
  });

  it('rejects an env value over 32768 bytes, a name over 32768 characters, and an empty name', async () => {
    const long = await rejection(runWith([{ name: 'BIG', value: 'é'.repeat(16_385) }]));
    expect(long).toMatchObject({ code: status.INVALID_ARGUMENT });
    expect(long.details).toContain('env[0].value: BIG is longer than the maximum of 32768 bytes');
    // Exactly at the limit is accepted.
    await expect(runWith([{ name: 'BIG', value: 'x'.repeat(32_768) }])).resolves.toBeTruthy();
    const longName = await rejection(runWith([{ name: `N${'A'.repeat(32_768)}`, value: '' }]));
    expect(longName.details).toContain('env[0].name: must not exceed 32768 characters');
    const empty = await rejection(runWith([{ name: '', value: 'x' }]));
    expect(empty.details).toContain('env[0].name: must not be empty');
  });

  it('rejects more than 1000 environment variables per container (job env included)', async () => {
    const variables = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ name: `V${i}`, value: '1' }));
    const error = await rejection(runWith(variables(1000)));
    expect(error).toMatchObject({ code: status.INVALID_ARGUMENT });
    expect(error.details).toContain('1001 environment variables; the maximum is 1000');
    await expect(runWith(variables(999))).resolves.toBeTruthy();
  });

  it('rejects a container override naming a container the job does not have', async () => {
    const error = await rejection(runWith([{ name: 'A', value: '1' }], { name: 'sidecar' }));
    expect(error).toMatchObject({ code: status.INVALID_ARGUMENT });
    expect(error.details).toBe(
      `overrides.container_overrides[0].name: container "sidecar" does not exist in job ${TEST_JOB}; its containers are: job.`,
    );
    await expect(runWith([{ name: 'A', value: '1' }], { name: 'job' })).resolves.toBeTruthy();
  });

  it('ListExecutions pages newest first with the overrides merged into each template; GetExecution agrees', async () => {
    const names: string[] = [];
    for (let i = 0; i < 5; i++) names.push(await runWith([{ name: 'LAUNCH_ID', value: `l-${i}` }]));
    await runWith([{ name: 'LAUNCH_ID', value: 'elsewhere' }], {}, OTHER_JOB);

    const seen: string[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const [executions, , response] = await clients.executions.listExecutions(
        { parent: TEST_JOB, pageSize: 2, pageToken },
        { autoPaginate: false },
      );
      pages++;
      expect(executions.length).toBeLessThanOrEqual(2);
      for (const execution of executions) {
        expect(execution.job).toBe(TEST_JOB);
        seen.push(execution.name!);
      }
      pageToken = response?.nextPageToken ?? '';
      // An execution created while paging does not shift the next page.
      if (pages === 1) names.push(await runWith([{ name: 'LAUNCH_ID', value: 'during' }]));
    } while (pageToken);
    const earlier = seen.filter((n) => names.slice(0, 5).includes(n));
    expect(earlier).toEqual([...names.slice(0, 5)].reverse());

    const [newest] = await clients.executions.listExecutions(
      { parent: TEST_JOB, pageSize: 1 },
      { autoPaginate: false },
    );
    const env = newest[0]!.template!.containers![0]!.env!;
    expect(newest[0]!.template!.containers![0]!.name).toBe('job');
    expect(env).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'BASE', value: 'from-job' }),
        expect.objectContaining({ name: 'LAUNCH_ID', value: 'during' }),
      ]),
    );
    const [fetched] = await clients.executions.getExecution({ name: newest[0]!.name! });
    expect(fetched.template?.containers?.[0]?.env).toEqual(env);
  });

  it('ListExecutions refuses a page token of another request and an unknown job', async () => {
    const [, , response] = await clients.executions.listExecutions(
      { parent: TEST_JOB, pageSize: 1 },
      { autoPaginate: false },
    );
    await expect(
      clients.executions.listExecutions(
        { parent: OTHER_JOB, pageSize: 1, pageToken: response!.nextPageToken! },
        { autoPaginate: false },
      ),
    ).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    await expect(
      clients.executions.listExecutions({
        parent: 'projects/demo-project/locations/us-central1/jobs/missing',
      }),
    ).rejects.toMatchObject({ code: status.NOT_FOUND });
    await expect(
      clients.executions.getExecution({ name: `${TEST_JOB}/executions/missing` }),
    ).rejects.toMatchObject({ code: status.NOT_FOUND });
  });

  it("a container override's args replace the job's args (the entrypoint stays), clearArgs empties them", async () => {
    const argsOf = async (override: { args?: string[]; clearArgs?: boolean }) => {
      const [operation] = await clients.jobs.runJob({
        name: ARGS_JOB,
        overrides: { containerOverrides: [override] },
      });
      const name = (operation.metadata as { name: string }).name;
      await emulator.waitForExecution(name);
      const [execution] = await clients.executions.getExecution({ name });
      return {
        args: execution.template?.containers?.[0]?.args,
        command: execution.template?.containers?.[0]?.command?.[0],
        succeeded: execution.succeededCount,
      };
    };
    expect(await argsOf({})).toEqual({
      args: ['run-job', 'pull-secret'],
      command: process.execPath,
      succeeded: 0,
    });
    expect(await argsOf({ args: ['doctor', '--all-projects'] })).toEqual({
      args: ['doctor', '--all-projects'],
      command: process.execPath,
      succeeded: 1,
    });
    expect((await argsOf({ clearArgs: true })).args).toEqual([]);
    const [job] = await clients.jobs.getJob({ name: ARGS_JOB });
    expect(job.template?.template?.containers?.[0]?.args).toEqual(['run-job', 'pull-secret']);
  });
});
