import { status } from '@grpc/grpc-js';
import type { CloudTasksClient } from '@google-cloud/tasks';
import {
  startCloudTasksEmulator,
  type CloudTasksEmulator,
} from '../../../emulators/cloud-tasks/server';
import { cloudTasksClient, LAUNCHER_SA, NO_RETRY, TEST_LOCATION } from '../../helpers/cloud-tasks';

// The Cloud Tasks emulator's queue and task rules, through the real @google-cloud/tasks client
// over gRPC. Dispatch is manual here (nothing is sent); cloud-tasks-dispatch.test.ts sends.
describe('Cloud Tasks emulator: queues and tasks', () => {
  let emulator: CloudTasksEmulator;
  let client: CloudTasksClient;
  let nowMs = Date.parse('2026-11-26T12:00:00Z');
  const TOMBSTONE_MS = 60_000;
  let queueNumber = 0;
  const newQueue = async (extra: Record<string, unknown> = {}) => {
    const name = `${TEST_LOCATION}/queues/q-${++queueNumber}`;
    const [queue] = await client.createQueue(
      { parent: TEST_LOCATION, queue: { name, ...extra } },
      NO_RETRY,
    );
    return queue;
  };
  const httpTask = (name?: string) => ({
    ...(name ? { name } : {}),
    httpRequest: {
      url: 'http://127.0.0.1:9/v2/projects/p/locations/l/jobs/j:run',
      headers: { 'Content-Type': 'application/json', 'X-Custom': 'secret-ish' },
      body: Buffer.from('{"overrides":{}}'),
      oauthToken: { serviceAccountEmail: LAUNCHER_SA },
    },
  });

  beforeAll(async () => {
    emulator = await startCloudTasksEmulator({
      now: () => nowMs,
      dispatch: 'manual',
      taskTombstoneMs: TOMBSTONE_MS,
    });
    client = cloudTasksClient(emulator.endpoint);
  });
  afterAll(async () => {
    await client.close();
    await emulator.stop();
  });

  // https://cloud.google.com/tasks/docs/reference/rest/v2/projects.locations.queues (Queue, RateLimits, RetryConfig)
  it('creates, reads, lists, updates and deletes queues, with Cloud Tasks defaults and a derived burst size', async () => {
    const queue = await newQueue({ rateLimits: { maxDispatchesPerSecond: 10 } });
    expect(queue).toMatchObject({
      state: 'RUNNING',
      rateLimits: { maxDispatchesPerSecond: 10, maxBurstSize: 2, maxConcurrentDispatches: 1000 },
      retryConfig: { maxAttempts: 100, maxDoublings: 16 },
    });
    const [got] = await client.getQueue({ name: queue.name! });
    expect(got.name).toBe(queue.name);
    const [listed] = await client.listQueues({ parent: TEST_LOCATION });
    expect(listed.map((q) => q.name)).toContain(queue.name);

    const [updated] = await client.updateQueue({
      queue: {
        name: queue.name!,
        rateLimits: { maxDispatchesPerSecond: 500 },
        retryConfig: { maxAttempts: 5 },
      },
      updateMask: { paths: ['rate_limits.max_dispatches_per_second', 'retry_config.max_attempts'] },
    });
    expect(updated.rateLimits).toMatchObject({ maxDispatchesPerSecond: 500, maxBurstSize: 100 });
    expect(updated.retryConfig?.maxAttempts).toBe(5);

    await expect(
      client.createQueue({ parent: TEST_LOCATION, queue: { name: queue.name! } }, NO_RETRY),
    ).rejects.toMatchObject({
      code: status.ALREADY_EXISTS,
    });
    await client.deleteQueue({ name: queue.name! });
    await expect(client.getQueue({ name: queue.name! }, NO_RETRY)).rejects.toMatchObject({
      code: status.NOT_FOUND,
    });
  });

  it('refuses a queue id outside [A-Za-z0-9-]{1,100} and rates beyond the documented maximum', async () => {
    await expect(
      client.createQueue(
        { parent: TEST_LOCATION, queue: { name: `${TEST_LOCATION}/queues/bad_queue` } },
        NO_RETRY,
      ),
    ).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    await expect(newQueue({ rateLimits: { maxDispatchesPerSecond: 501 } })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: expect.stringContaining('at most 500') as unknown,
    });
  });

  // Task.name: "TASK_ID can contain only letters ([A-Za-z]), numbers ([0-9]), hyphens (-), or
  // underscores (_). The maximum length is 500 characters."
  it.each([
    ['a space', 'has space'],
    ['a slash', 'a/b'],
    ['a dot', 'v1.2'],
    ['501 characters', 'x'.repeat(501)],
  ])('refuses a task id with %s (INVALID_ARGUMENT naming the rule)', async (_what, id) => {
    const queue = await newQueue();
    await expect(
      client.createTask(
        { parent: queue.name!, task: httpTask(`${queue.name}/tasks/${id}`) },
        NO_RETRY,
      ),
    ).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: expect.stringContaining('TASK_ID can contain only letters') as unknown,
    });
  });

  it('accepts a 500-character id of every allowed character, and names an unnamed task itself', async () => {
    const queue = await newQueue();
    const id = `Aa0-_${'z'.repeat(495)}`;
    const [named] = await client.createTask({
      parent: queue.name!,
      task: httpTask(`${queue.name}/tasks/${id}`),
    });
    expect(named.name).toBe(`${queue.name}/tasks/${id}`);
    const [unnamed] = await client.createTask({ parent: queue.name!, task: httpTask() });
    expect(unnamed.name).toMatch(new RegExp(`^${queue.name}/tasks/\\d+$`));
  });

  // CreateTaskRequest.task, "Task De-duplication": ALREADY_EXISTS for an existing task's name, or
  // one "deleted or executed recently" (~1 hour for queues created with Cloud Tasks).
  it('refuses a named task that exists or existed within the tombstone window, and accepts it after', async () => {
    const queue = await newQueue();
    const name = `${queue.name}/tasks/launch-cluster-1-gen-3`;
    await client.createTask({ parent: queue.name!, task: httpTask(name) });
    await expect(
      client.createTask({ parent: queue.name!, task: httpTask(name) }, NO_RETRY),
    ).rejects.toMatchObject({
      code: status.ALREADY_EXISTS,
    });
    await client.deleteTask({ name });
    await expect(client.getTask({ name }, NO_RETRY)).rejects.toMatchObject({
      code: status.NOT_FOUND,
    });
    nowMs += TOMBSTONE_MS - 1;
    await expect(
      client.createTask({ parent: queue.name!, task: httpTask(name) }, NO_RETRY),
    ).rejects.toMatchObject({
      code: status.ALREADY_EXISTS,
    });
    nowMs += 1;
    const [again] = await client.createTask({ parent: queue.name!, task: httpTask(name) });
    expect(again.name).toBe(name);
  });

  // Task.View: BASIC (the default) "omits fields which can be large or can contain sensitive data"
  // (the body); FULL returns everything.
  it('answers the BASIC view without body and headers, and FULL with them', async () => {
    const queue = await newQueue();
    const [created] = await client.createTask({ parent: queue.name!, task: httpTask() });
    expect(created.view).toBe('BASIC');
    expect(created.httpRequest?.body?.length ?? 0).toBe(0);
    expect(created.httpRequest?.headers ?? {}).toEqual({});
    expect(created.httpRequest).toMatchObject({
      httpMethod: 'POST',
      oauthToken: { serviceAccountEmail: LAUNCHER_SA },
    });
    const [basic] = await client.getTask({ name: created.name! });
    expect(basic.httpRequest?.body?.length ?? 0).toBe(0);
    const [full] = await client.getTask({ name: created.name!, responseView: 'FULL' });
    expect(full.view).toBe('FULL');
    expect(Buffer.from(full.httpRequest!.body as Uint8Array).toString()).toBe('{"overrides":{}}');
    expect(full.httpRequest?.headers).toMatchObject({
      'Content-Type': 'application/json',
      'X-Custom': 'secret-ish',
    });
    expect(full.httpRequest?.oauthToken?.scope).toBe(
      'https://www.googleapis.com/auth/cloud-platform',
    );
    const [listed] = await client.listTasks({ parent: queue.name!, responseView: 'FULL' });
    expect(listed).toHaveLength(1);
  });

  it('pauses and resumes a queue, and purges its tasks', async () => {
    const queue = await newQueue();
    const [paused] = await client.pauseQueue({ name: queue.name! });
    expect(paused.state).toBe('PAUSED');
    await client.createTask({ parent: queue.name!, task: httpTask() });
    // A paused queue dispatches nothing (other tests' queues may).
    const started = await emulator.dispatchDue();
    expect(started.filter((name) => name.startsWith(`${queue.name}/`))).toEqual([]);
    const [resumed] = await client.resumeQueue({ name: queue.name! });
    expect(resumed.state).toBe('RUNNING');
    // PurgeQueue: "All tasks that were created before this time were purged."
    const [purged] = await client.purgeQueue({ name: queue.name! });
    expect(purged.purgeTime).toBeTruthy();
    const [left] = await client.listTasks({ parent: queue.name! });
    expect(left).toEqual([]);
  });

  it('refuses a body on a GET task and a task in a missing queue', async () => {
    const queue = await newQueue();
    await expect(
      client.createTask(
        {
          parent: queue.name!,
          task: { httpRequest: { url: 'http://x/', httpMethod: 'GET', body: Buffer.from('x') } },
        },
        NO_RETRY,
      ),
    ).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    await expect(
      client.createTask({ parent: `${TEST_LOCATION}/queues/missing`, task: httpTask() }, NO_RETRY),
    ).rejects.toMatchObject({ code: status.NOT_FOUND });
  });

  it('fails CreateTask with an injected fault through the common FaultInjector', async () => {
    const queue = await newQueue();
    const response = await fetch(`${emulator.adminUrl}/_emulator/faults`, {
      method: 'POST',
      body: JSON.stringify({ match: 'CreateTask', status: 'UNAVAILABLE', count: 1 }),
    });
    expect(response.status).toBe(200);
    await expect(
      client.createTask({ parent: queue.name!, task: httpTask() }, NO_RETRY),
    ).rejects.toMatchObject({
      code: status.UNAVAILABLE,
    });
    const [created] = await client.createTask({ parent: queue.name!, task: httpTask() }, NO_RETRY);
    expect(created.name).toBeTruthy();
  });
});
