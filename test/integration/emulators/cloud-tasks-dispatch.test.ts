import { status } from '@grpc/grpc-js';
import type { CloudTasksClient } from '@google-cloud/tasks';
import {
  startCloudTasksEmulator,
  type CloudTasksEmulator,
} from '../../../emulators/cloud-tasks/server';
import { cloudTasksClient, LAUNCHER_SA, NO_RETRY, TEST_LOCATION } from '../../helpers/cloud-tasks';
import { startHttpTarget, type HttpTarget } from '../../helpers/http-target';

// Dispatch of HTTP-target tasks, through the real @google-cloud/tasks client, to a local worker.
// The clock is the test's and dispatch runs on `dispatchDue()`, so rates and backoffs are exact
// and nothing races; the last test runs the default real-time dispatcher.
describe('Cloud Tasks emulator: dispatch', () => {
  let emulator: CloudTasksEmulator;
  let client: CloudTasksClient;
  let target: HttpTarget;
  let nowMs = Date.parse('2026-11-26T12:00:00Z');
  const minted: string[][] = [];
  let queueNumber = 0;
  const newQueue = async (extra: Record<string, unknown> = {}) => {
    const name = `${TEST_LOCATION}/queues/d-${++queueNumber}`;
    const [queue] = await client.createQueue({ parent: TEST_LOCATION, queue: { name, ...extra } });
    return queue.name!;
  };
  const createTask = async (queue: string, id?: string) => {
    const [task] = await client.createTask({
      parent: queue,
      task: {
        ...(id ? { name: `${queue}/tasks/${id}` } : {}),
        httpRequest: {
          url: `${target.url}/v2/projects/p/locations/l/jobs/j:run`,
          headers: { 'Content-Type': 'application/json' },
          body: Buffer.from('{"overrides":{"taskCount":1}}'),
          oauthToken: {
            serviceAccountEmail: LAUNCHER_SA,
            scope: 'https://www.googleapis.com/auth/cloud-platform',
          },
        },
      },
    });
    return task.name!;
  };
  const ours = (queue: string, started: readonly string[]) =>
    started.filter((n) => n.startsWith(`${queue}/`));

  beforeAll(async () => {
    target = await startHttpTarget();
    emulator = await startCloudTasksEmulator({
      now: () => nowMs,
      dispatch: 'manual',
      mintToken: (email, scope) => {
        minted.push([email, scope]);
        return `token-for-${email}`;
      },
    });
    client = cloudTasksClient(emulator.endpoint);
  });
  beforeEach(() => {
    target.answer = () => ({ status: 200 });
  });
  afterAll(async () => {
    target.release();
    await client.close();
    await emulator.stop();
    await target.close();
  });

  // HttpRequest: the request goes with the task's method, headers and body, "Authorization" from
  // oauth_token, User-Agent "Google-Cloud-Tasks"; the X-CloudTasks-* headers of
  // https://cloud.google.com/tasks/docs/creating-http-target-tasks#handler; a 2xx removes the task.
  it('sends the task with its OAuth bearer token and the Cloud Tasks headers, and deletes it on 2xx', async () => {
    const queue = await newQueue();
    const name = await createTask(queue, 'launch-a');
    const before = target.received.length;
    expect(ours(queue, await emulator.dispatchDue())).toEqual([name]);
    const request = target.received[before]!;
    expect(request).toMatchObject({
      method: 'POST',
      path: '/v2/projects/p/locations/l/jobs/j:run',
    });
    expect(request.body).toBe('{"overrides":{"taskCount":1}}');
    expect(request.headers).toMatchObject({
      authorization: `Bearer token-for-${LAUNCHER_SA}`,
      'content-type': 'application/json',
      'user-agent': 'Google-Cloud-Tasks',
      'x-cloudtasks-queuename': queue.split('/').pop(),
      'x-cloudtasks-taskname': 'launch-a',
      'x-cloudtasks-taskretrycount': '0',
      'x-cloudtasks-taskexecutioncount': '0',
      'x-cloudtasks-tasketa': (nowMs / 1000).toFixed(6),
    });
    expect(minted).toContainEqual([LAUNCHER_SA, 'https://www.googleapis.com/auth/cloud-platform']);
    await expect(client.getTask({ name }, NO_RETRY)).rejects.toMatchObject({
      code: status.NOT_FOUND,
    });
    // Executed: the name stays taken (dedupe).
    await expect(createTask(queue, 'launch-a')).rejects.toMatchObject({
      code: status.ALREADY_EXISTS,
    });
  });

  // Any other answer is retried per RetryConfig: "starts at min_backoff, then doubles
  // max_doublings times"; last_attempt.response_status is the google.rpc.Status of the answer.
  it('records a 403 as PERMISSION_DENIED in lastAttempt and retries after min_backoff, doubling', async () => {
    const queue = await newQueue({
      retryConfig: {
        minBackoff: { seconds: 1 },
        maxBackoff: { seconds: 60 },
        maxDoublings: 3,
        maxAttempts: 10,
      },
    });
    const name = await createTask(queue, 'denied');
    target.answer = () => ({ status: 403 });
    const attemptAt = nowMs;
    await emulator.dispatchDue();
    const [task] = await client.getTask({ name });
    expect(task).toMatchObject({ dispatchCount: 1, responseCount: 1 });
    expect(task.lastAttempt?.responseStatus).toMatchObject({ code: status.PERMISSION_DENIED });
    expect(Number(task.lastAttempt?.dispatchTime?.seconds)).toBe(attemptAt / 1000);
    expect(Number(task.scheduleTime?.seconds)).toBe(attemptAt / 1000 + 1);
    expect(Number(task.firstAttempt?.dispatchTime?.seconds)).toBe(attemptAt / 1000);

    nowMs += 999;
    expect(ours(queue, await emulator.dispatchDue())).toEqual([]);
    nowMs += 1;
    const before = target.received.length;
    expect(ours(queue, await emulator.dispatchDue())).toEqual([name]);
    expect(target.received[before]!.headers).toMatchObject({
      'x-cloudtasks-taskretrycount': '1',
      'x-cloudtasks-taskexecutioncount': '1',
      'x-cloudtasks-taskpreviousresponse': '403',
    });
    const [second] = await client.getTask({ name });
    // The second failure waits twice min_backoff.
    expect(Number(second.scheduleTime?.seconds) - nowMs / 1000).toBe(2);
  });

  // "When the task has been attempted maxAttempts times ..., no further attempts are made, and the task is deleted."
  it('deletes a task once max_attempts is exhausted, and a connection failure counts as an attempt', async () => {
    const queue = await newQueue({
      retryConfig: { minBackoff: { nanos: 100_000_000 }, maxAttempts: 2 },
    });
    const [task] = await client.createTask({
      parent: queue,
      task: {
        name: `${queue}/tasks/doomed`,
        httpRequest: { url: 'http://127.0.0.1:9/unreachable' },
      },
    });
    await emulator.dispatchDue();
    const [failed] = await client.getTask({ name: task.name! });
    expect(failed).toMatchObject({ dispatchCount: 1, responseCount: 0 });
    expect(failed.lastAttempt?.responseStatus?.code).toBe(status.UNAVAILABLE);
    nowMs += 100;
    expect(ours(queue, await emulator.dispatchDue())).toEqual([task.name]);
    await expect(client.getTask({ name: task.name! }, NO_RETRY)).rejects.toMatchObject({
      code: status.NOT_FOUND,
    });
  });

  // RateLimits: a token bucket of max_burst_size tokens refilled at max_dispatches_per_second.
  it('spaces dispatches at max_dispatches_per_second once the burst is spent', async () => {
    const queue = await newQueue({ rateLimits: { maxDispatchesPerSecond: 2 } });
    const [described] = await client.getQueue({ name: queue });
    expect(described.rateLimits?.maxBurstSize).toBe(1);
    for (let i = 0; i < 3; i++) await createTask(queue);
    expect(ours(queue, await emulator.dispatchDue())).toHaveLength(1);
    nowMs += 499;
    expect(ours(queue, await emulator.dispatchDue())).toHaveLength(0);
    nowMs += 1;
    expect(ours(queue, await emulator.dispatchDue())).toHaveLength(1);
    nowMs += 500;
    expect(ours(queue, await emulator.dispatchDue())).toHaveLength(1);
  });

  // A virtual clock's driver (the fleet simulation) ticks exactly when the next attempt may start.
  it('tells when the next attempt may start: the rate token, the schedule time, or nothing waiting', async () => {
    const queue = await newQueue({ rateLimits: { maxDispatchesPerSecond: 2 } });
    expect(emulator.nextDueMs(queue)).toBeUndefined();
    for (let i = 0; i < 2; i++) await createTask(queue);
    expect(emulator.nextDueMs(queue)).toBe(nowMs);
    await emulator.dispatchDue();
    expect(emulator.nextDueMs(queue)).toBe(nowMs + 500);
    nowMs += 500;
    expect(ours(queue, await emulator.dispatchDue())).toHaveLength(1);
    expect(emulator.nextDueMs(queue)).toBeUndefined();
    const later = nowMs + 10_000;
    await client.createTask({
      parent: queue,
      task: {
        scheduleTime: { seconds: Math.floor(later / 1000), nanos: (later % 1000) * 1e6 },
        httpRequest: { url: `${target.url}/later`, httpMethod: 'POST' },
      },
    });
    expect(emulator.nextDueMs(queue)).toBe(later);
  });

  // RateLimits.max_concurrent_dispatches: "After this threshold has been reached, Cloud Tasks stops
  // dispatching tasks until the number of concurrent requests decreases."
  it('holds dispatches at max_concurrent_dispatches until an attempt is answered', async () => {
    const queue = await newQueue({ rateLimits: { maxConcurrentDispatches: 2 } });
    for (let i = 0; i < 3; i++) await createTask(queue);
    target.answer = () => 'hold';
    const arrived = target.received.length;
    const started = emulator.tick();
    expect(ours(queue, started)).toHaveLength(2);
    // Every attempt started (another queue's due retry included) has reached the worker.
    await target.nth(arrived + started.length);
    expect(ours(queue, emulator.tick())).toHaveLength(0);
    target.answer = () => ({ status: 200 });
    expect(target.release()).toBe(started.length);
    await emulator.idle();
    expect(ours(queue, await emulator.dispatchDue())).toHaveLength(1);
  });

  // Queue.State PAUSED: "Cloud Tasks will stop delivering tasks from it, but more tasks can still
  // be added"; RunTask dispatches "even if the queue ... is PAUSED".
  it('dispatches nothing from a paused queue, keeps its tasks, and resumes; RunTask runs one anyway', async () => {
    const queue = await newQueue();
    await client.pauseQueue({ name: queue });
    const first = await createTask(queue);
    const second = await createTask(queue);
    expect(ours(queue, await emulator.dispatchDue())).toEqual([]);
    const [ran] = await client.runTask({ name: first });
    expect(ran.dispatchCount).toBe(1);
    await emulator.idle();
    const [left] = await client.listTasks({ parent: queue });
    expect(left.map((t) => t.name)).toEqual([second]);
    await client.resumeQueue({ name: queue });
    expect(ours(queue, await emulator.dispatchDue())).toEqual([second]);
  });

  it('holds a task until its schedule_time', async () => {
    const queue = await newQueue();
    const [task] = await client.createTask({
      parent: queue,
      task: {
        httpRequest: { url: `${target.url}/later` },
        scheduleTime: { seconds: nowMs / 1000 + 30 },
      },
    });
    expect(ours(queue, await emulator.dispatchDue())).toEqual([]);
    nowMs += 30_000;
    expect(ours(queue, await emulator.dispatchDue())).toEqual([task.name]);
  });
});

describe('Cloud Tasks emulator: real-time dispatch (the default)', () => {
  it('dispatches a new task by itself and retries it after its backoff', async () => {
    const target = await startHttpTarget();
    const emulator = await startCloudTasksEmulator({
      queues: [
        {
          name: `${TEST_LOCATION}/queues/live`,
          retryConfig: { minBackoff: '50ms', maxAttempts: 3 },
        },
      ],
    });
    const client = cloudTasksClient(emulator.endpoint);
    try {
      let answers = 0;
      target.answer = () => ({ status: answers++ === 0 ? 503 : 204 });
      await client.createTask({
        parent: `${TEST_LOCATION}/queues/live`,
        task: { httpRequest: { url: `${target.url}/go` } },
      });
      await target.nth(1);
      const retried = await target.nth(2);
      expect(retried.headers['x-cloudtasks-taskretrycount']).toBe('1');
      await emulator.idle();
      const [left] = await client.listTasks({ parent: `${TEST_LOCATION}/queues/live` });
      expect(left).toEqual([]);
    } finally {
      await client.close();
      await emulator.stop();
      await target.close();
    }
  });
});
