import { startCloudRunEmulator, type CloudRunEmulator } from '../../../emulators/cloud-run/server';
import { startCloudTasksEmulator } from '../../../emulators/cloud-tasks/server';
import { cloudRunClients, SCRIPTED_TASK, TEST_JOB } from '../../helpers/cloud-run';
import { cloudTasksClient, LAUNCHER_SA } from '../../helpers/cloud-tasks';

// The Cloud Run Admin API's REST jobs.run (https://cloud.google.com/run/docs/reference/rest/v2/projects.locations.jobs/run),
// what a Cloud Tasks HTTP target calls: the same RunJob as the gRPC surface (quota, rules, faults),
// Google's JSON errors (https://cloud.google.com/apis/design/errors#http_mapping).
describe('Cloud Run emulator: REST POST /v2/{job}:run', () => {
  let emulator: CloudRunEmulator;
  let clients: ReturnType<typeof cloudRunClients>;
  let nowMs = Date.parse('2026-11-26T12:00:00Z');
  const run = (
    body: unknown,
    headers: Record<string, string> = { authorization: 'Bearer t' },
    job = TEST_JOB,
  ) =>
    fetch(`${emulator.apiUrl}/v2/${job}:run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

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
      now: () => nowMs,
    });
    clients = cloudRunClients(emulator.endpoint);
  });
  afterEach(() => {
    emulator.faults.clear();
    emulator.quota.set(undefined);
  });
  afterAll(async () => {
    await clients.jobs.close();
    await clients.executions.close();
    await clients.tasks.close();
    await emulator.stop();
  });

  it('runs the job with JSON overrides and answers the Operation whose metadata is the Execution', async () => {
    const response = await run({
      overrides: {
        containerOverrides: [{ env: [{ name: 'CLUSTER_ID', value: 'c-1' }] }],
        timeout: '45s',
      },
    });
    expect(response.status).toBe(200);
    const operation = (await response.json()) as {
      name: string;
      done: boolean;
      metadata: {
        '@type': string;
        name: string;
        job: string;
        createTime: string;
        taskCount: number;
      };
    };
    expect(operation.name).toMatch(/^projects\/demo-project\/locations\/us-central1\/operations\//);
    expect(operation.metadata).toMatchObject({
      '@type': 'type.googleapis.com/google.cloud.run.v2.Execution',
      job: TEST_JOB,
      taskCount: 1,
    });
    expect(operation.metadata.createTime).toMatch(/^\d{4}-\d\d-\d\dT/);
    // The execution is the gRPC surface's too.
    const [execution] = await clients.executions.getExecution({ name: operation.metadata.name });
    expect(execution.template?.timeout?.seconds).toBe('45');
    expect(emulator.executions.get(operation.metadata.name)?.env.CLUSTER_ID).toBe('c-1');
    await emulator.waitForExecution(operation.metadata.name);
  });

  it('answers 401 UNAUTHENTICATED without a bearer token, and creates nothing', async () => {
    const before = emulator.executions.size;
    const response = await run({}, {});
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({
      error: { code: 401, status: 'UNAUTHENTICATED' },
    });
    expect(emulator.executions.size).toBe(before);
  });

  it.each([
    ['PERMISSION_DENIED', 403],
    ['NOT_FOUND', 404],
    ['INVALID_ARGUMENT', 400],
    ['UNAVAILABLE', 503],
  ])(
    "answers an injected %s (the RunJob fault) with HTTP %i and Google's JSON error",
    async (code, http) => {
      emulator.faults.add({ match: 'RunJob', status: code, message: `injected ${code}` });
      const response = await run({});
      expect(response.status).toBe(http);
      expect(await response.json()).toEqual({
        error: { code: http, message: `injected ${code}`, status: code },
      });
    },
  );

  it('answers 429 RESOURCE_EXHAUSTED beyond the RunJob quota, which gRPC and REST share', async () => {
    emulator.quota.set(1);
    nowMs += 120_000;
    const [operation] = await clients.jobs.runJob({ name: TEST_JOB }, { retry: null });
    await emulator.waitForExecution((operation.metadata as { name: string }).name);
    const response = await run({});
    expect(response.status).toBe(429);
    expect(await response.json()).toMatchObject({
      error: { code: 429, status: 'RESOURCE_EXHAUSTED' },
    });
  });

  it('answers 404 for an unknown job and 400 for an unknown field or a reserved env name', async () => {
    const missing = await run(
      {},
      undefined,
      'projects/demo-project/locations/us-central1/jobs/nope',
    );
    expect(missing.status).toBe(404);
    const unknown = await run({ overrides: { containerOverride: [] } });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain(
      'Unknown name "containerOverride"',
    );
    const reserved = await run({
      overrides: { containerOverrides: [{ env: [{ name: 'PORT', value: '1' }] }] },
    });
    expect(reserved.status).toBe(400);
  });

  it('is launched by a Cloud Tasks HTTP target task with an OAuth token, end to end', async () => {
    const tasks = await startCloudTasksEmulator({
      queues: [{ name: 'projects/demo-project/locations/us-central1/queues/launches' }],
    });
    const client = cloudTasksClient(tasks.endpoint);
    try {
      const before = new Set(emulator.executions.keys());
      // Watched before the task exists: the dispatch may be answered before CreateTask's reply arrives.
      const dispatched = new Promise<void>((resolve) => {
        const stop = tasks.requests.observe((record) => {
          if (record.method === 'Dispatch') {
            stop();
            resolve();
          }
        });
      });
      await client.createTask({
        parent: 'projects/demo-project/locations/us-central1/queues/launches',
        task: {
          name: 'projects/demo-project/locations/us-central1/queues/launches/tasks/cluster-c-2-gen-1',
          httpRequest: {
            url: `${emulator.apiUrl}/v2/${TEST_JOB}:run`,
            headers: { 'Content-Type': 'application/json' },
            body: Buffer.from(
              JSON.stringify({
                overrides: {
                  containerOverrides: [{ env: [{ name: 'CLUSTER_ID', value: 'c-2' }] }],
                },
              }),
            ),
            oauthToken: { serviceAccountEmail: LAUNCHER_SA },
          },
        },
      });
      await dispatched;
      const created = [...emulator.executions.values()].filter((e) => !before.has(e.name));
      expect(created.map((e) => e.env.CLUSTER_ID)).toEqual(['c-2']);
      expect(tasks.requests.list().find((r) => r.method === 'Dispatch')?.outcome).toBe(200);
      await emulator.waitForExecution(created[0]!.name);
    } finally {
      await client.close();
      await tasks.stop();
    }
  });
});
