import { status } from '@grpc/grpc-js';
import { startCloudRunEmulator, type CloudRunEmulator } from '../../../emulators/cloud-run/server';
import { cloudRunClients, SCRIPTED_TASK, TEST_JOB } from '../../helpers/cloud-run';

// The emulator's "Job run requests per minute per region" quota, through the real JobsClient: what
// the adapter's launch rate is measured against (test/integration/adapter/launch-rate.test.ts).
describe('Cloud Run emulator: the RunJob quota', () => {
  let emulator: CloudRunEmulator;
  let clients: ReturnType<typeof cloudRunClients>;
  let nowMs = Date.parse('2026-11-26T12:00:00Z');

  beforeAll(async () => {
    emulator = await startCloudRunEmulator({
      jobs: [
        {
          name: TEST_JOB,
          command: [process.execPath, SCRIPTED_TASK],
          env: { TASK_BEHAVIOUR: 'succeed' },
          maxRetries: 0,
          timeoutSeconds: 30,
        },
      ],
      runJobQuotaPerMinute: 3,
      now: () => nowMs,
    });
    clients = cloudRunClients(emulator.endpoint);
  });
  afterAll(async () => {
    await clients.jobs.close();
    await clients.executions.close();
    await clients.tasks.close();
    await emulator.stop();
  });

  const runJob = async () => {
    const [operation] = await clients.jobs.runJob({ name: TEST_JOB }, { retry: null });
    const name = (operation.metadata as { name?: string } | undefined)?.name;
    if (!name) throw new Error('RunJob returned no execution name');
    await emulator.waitForExecution(name);
    return name;
  };
  const admin = async (body?: unknown) => {
    const response = await fetch(`${emulator.adminUrl}/_emulator/quota`, {
      method: body === undefined ? 'GET' : 'POST',
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { runJobsPerMinute: number | null; inWindow: number };
  };

  it('refuses RunJob beyond the quota within a minute with RESOURCE_EXHAUSTED and creates nothing', async () => {
    for (let i = 0; i < 3; i++) await runJob();
    const before = emulator.executions.size;
    const refused = clients.jobs.runJob({ name: TEST_JOB }, { retry: null });
    await expect(refused).rejects.toMatchObject({
      code: status.RESOURCE_EXHAUSTED,
      details: expect.stringContaining(
        "limit 'Job run requests per minute per region' of service 'run.googleapis.com'",
      ) as unknown,
    });
    expect(emulator.executions.size).toBe(before);
    expect(emulator.quota.state()).toMatchObject({ runJobsPerMinute: 3, inWindow: 3, refused: 1 });

    // A rolling minute: 59 s later the window is still full, 60 s after the first it has room.
    nowMs += 59_000;
    await expect(clients.jobs.runJob({ name: TEST_JOB }, { retry: null })).rejects.toMatchObject({
      code: status.RESOURCE_EXHAUSTED,
    });
    nowMs += 1_000;
    await runJob();
  });

  it('is changed and turned off through the control API', async () => {
    expect(await admin()).toMatchObject({ runJobsPerMinute: 3 });
    expect(await admin({ runJobsPerMinute: null })).toMatchObject({ runJobsPerMinute: null });
    for (let i = 0; i < 5; i++) await runJob();
    expect(await admin({ runJobsPerMinute: 1 })).toMatchObject({ runJobsPerMinute: 1 });
    nowMs += 60_000;
    await runJob();
    await expect(clients.jobs.runJob({ name: TEST_JOB }, { retry: null })).rejects.toMatchObject({
      code: status.RESOURCE_EXHAUSTED,
    });
  });
});
