import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import * as functions from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import type { CloudEventV1 } from 'cloudevents';
import { createAdapterHandler } from '../../../functions/adapter/flows/handle-event';
import {
  compilePreconditions,
  DEFAULT_PRECONDITIONS,
} from '../../../functions/adapter/decision/preconditions';
import { startCloudRunEmulator, type CloudRunEmulator } from '../../../emulators/cloud-run/server';
import {
  startCloudTasksEmulator,
  type CloudTasksEmulator,
} from '../../../emulators/cloud-tasks/server';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import { readOwnStatus } from '../../../shared/status/own-status';
import { cloudRunClients, hangingTestJob } from '../../helpers/cloud-run';
import { postBinary, postStructured, pushPubSub, sentinelEvent } from '../../helpers/events';
import { hyperFleetClient, readySpec, seedReadyCluster } from '../../helpers/hyperfleet';
import { RecordingLogger } from '../../helpers/recording-logger';
import {
  TEST_DECISION_SETTINGS,
  TEST_LAUNCH_QUEUE,
  TEST_PULL_SECRET_PATHS,
  adapterCloudPorts,
} from '../../helpers/adapter';

describe('adapter function through functions-framework, against the HyperFleet, Cloud Tasks and Cloud Run emulators', () => {
  let hyperfleet: HyperFleetApiEmulator;
  let cloudRun: CloudRunEmulator;
  // Dispatched by the test (dispatchDue), so each test sees every launch the events made.
  let tasks: CloudTasksEmulator;
  let clients: ReturnType<typeof cloudRunClients>;
  let server: Server;
  let url: string;
  let logger: RecordingLogger;

  beforeAll(async () => {
    hyperfleet = await startHyperFleetApiEmulator();
    cloudRun = await startCloudRunEmulator({
      jobs: [hangingTestJob()],
    });
    tasks = await startCloudTasksEmulator({
      dispatch: 'manual',
      queues: [{ name: TEST_LAUNCH_QUEUE, retryConfig: { maxAttempts: 3, minBackoff: '0.1s' } }],
    });
    clients = cloudRunClients(cloudRun.endpoint);
    logger = new RecordingLogger();
    const { lookup, ...launchQueue } = adapterCloudPorts(
      {
        tasksHost: tasks.endpoint,
        cloudRunEndpoint: cloudRun.apiUrl,
        executions: clients.executions,
      },
      logger,
    );
    const handler = createAdapterHandler({
      hyperfleet: hyperFleetClient(hyperfleet, { logger, retryAttempts: 2 }),
      launchQueue,
      lookup,
      preconditions: compilePreconditions(DEFAULT_PRECONDITIONS),
      // A queued launch is looked up (GetTask) at the next event.
      settings: { ...TEST_DECISION_SETTINGS, launchCheckAfterMs: 0 },
      pullSecret: TEST_PULL_SECRET_PATHS,
      logger,
    });
    functions.cloudEvent('adapter-under-test', (event: CloudEventV1<unknown>) => handler(event));
    server = getTestServer('adapter-under-test');
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.close();
    await clients.jobs.close();
    await clients.executions.close();
    await tasks.stop();
    await cloudRun.stop();
    await hyperfleet.stop();
  });
  beforeEach(() => {
    hyperfleet.faults.clear();
    cloudRun.faults.clear();
    tasks.faults.clear();
  });

  /** Delivers the event, then lets the queue dispatch what it queued; the delivery's HTTP answer. */
  const deliver = async (send: Promise<number>) => {
    const answer = await send;
    await tasks.dispatchDue();
    return answer;
  };

  const own = async (id: string) =>
    readOwnStatus(await hyperFleetClient(hyperfleet).listStatuses(id));
  const executionsFor = (id: string) =>
    [...cloudRun.executions.values()].filter((e) => e.env.CLUSTER_ID === id);

  it('queues one launch for a ready cluster, which runs one execution with references only', async () => {
    const { id, namespace } = seedReadyCluster(hyperfleet, { name: 'ready-one' });
    expect(await deliver(pushPubSub(url, sentinelEvent(id, 1)))).toBe(204);
    const launched = executionsFor(id);
    expect(launched).toHaveLength(1);
    expect(launched[0]!.env).toEqual({
      TASK_BEHAVIOUR: 'hang',
      CLUSTER_ID: id,
      CLUSTER_NAME: 'ready-one',
      GENERATION: '1',
      GCP_PROJECT_ID: 'demo-project',
      SECRET_NAME: `hyperfleet-${id}-pull-secret`,
      MANAGEMENT_NAMESPACE: namespace,
      OPERATION: 'apply',
      LAUNCH_ATTEMPT: '1',
      LAUNCH_ID: expect.stringMatching(new RegExp(`^[0-9a-f]{8}-${id}-g1-apply-a1$`)),
      PULL_SECRET_SOURCE: 'cluster-spec',
      PULL_SECRET_SPEC_PATH: 'spec.pullSecret.data',
      PULL_SECRET_ADDITIONAL_SPEC_PATH: 'spec.pullSecret.additional',
    });
    // The task was created as the launcher identity's RunJob: its OAuth token, not the adapter's.
    const dispatch = tasks.requests.list().find((r) => r.method === 'Dispatch');
    expect(dispatch).toBeDefined();
    expect(await own(id)).toMatchObject({
      observedGeneration: 1,
      available: 'False',
      availableReason: 'JobQueued',
      appliedReason: 'JobQueued',
      health: 'True',
      data: {
        task: `${TEST_LAUNCH_QUEUE}/tasks/${launched[0]!.env.LAUNCH_ID}`,
        operation: 'apply',
        attempt: 1,
      },
    });
  });

  it('launches nothing more for ten duplicate events, sequential or concurrent', async () => {
    const { id } = seedReadyCluster(hyperfleet, { name: 'duplicates' });
    const event = sentinelEvent(id, 1);
    for (let i = 0; i < 5; i++) expect(await deliver(pushPubSub(url, event))).toBe(204);
    expect(
      await deliver(
        Promise.all(Array.from({ length: 10 }, () => pushPubSub(url, event))).then((answers) => {
          expect(answers).toEqual(Array(10).fill(204));
          return 204;
        }),
      ),
    ).toBe(204);
    expect(executionsFor(id)).toHaveLength(1);
  });

  it('accepts the Sentinel CloudEvent directly, in binary and structured mode', async () => {
    const binary = seedReadyCluster(hyperfleet, { name: 'binary-mode' });
    expect(await deliver(postBinary(url, sentinelEvent(binary.id, 1)))).toBe(204);
    const structured = seedReadyCluster(hyperfleet, { name: 'structured-mode' });
    expect(await deliver(postStructured(url, sentinelEvent(structured.id, 1)))).toBe(204);
    expect(executionsFor(binary.id)).toHaveLength(1);
    expect(executionsFor(structured.id)).toHaveLength(1);
  });

  it('reports PreconditionsNotMet naming the precondition, without a job, and once per heartbeat', async () => {
    const { id } = seedReadyCluster(hyperfleet, { name: 'not-ready', dns: 'False' });
    hyperfleet.requests.clear();
    expect(await pushPubSub(url, sentinelEvent(id, 1))).toBe(204);
    expect(await pushPubSub(url, sentinelEvent(id, 1))).toBe(204);
    expect(executionsFor(id)).toHaveLength(0);
    const status = (await hyperFleetClient(hyperfleet).listStatuses(id)).find(
      (s) => s.adapter === 'pullsecret',
    );
    const byType = Object.fromEntries((status?.conditions ?? []).map((c) => [c.type, c]));
    expect(byType.Applied).toMatchObject({
      status: 'False',
      reason: 'PreconditionsNotMet',
      message: expect.stringContaining('dnsAvailable'),
    });
    expect(byType.Available).toMatchObject({ status: 'False', reason: 'PreconditionsNotMet' });
    expect(byType.Health).toMatchObject({ status: 'True' });
    expect(hyperfleet.requests.list().filter((r) => r.method === 'PUT')).toHaveLength(1);
  });

  it('launches a delete for a cluster being deleted', async () => {
    const { id } = seedReadyCluster(hyperfleet, { name: 'doomed' });
    await deliver(pushPubSub(url, sentinelEvent(id, 1)));
    hyperfleet.store.deleteCluster(id, 'test');
    expect(await deliver(pushPubSub(url, sentinelEvent(id, 2)))).toBe(204);
    const launches = executionsFor(id);
    expect(launches.map((e) => e.env.OPERATION)).toEqual(['apply', 'delete']);
    expect(await own(id)).toMatchObject({
      observedGeneration: 2,
      availableReason: 'JobQueued',
      finalized: 'False',
    });
  });

  it('acknowledges an event for a cluster that is gone, with no report', async () => {
    hyperfleet.requests.clear();
    expect(await pushPubSub(url, sentinelEvent('0195a1b2-0000-7000-8000-000000000000', 1))).toBe(
      204,
    );
    expect(hyperfleet.requests.list().map((r) => r.method)).toEqual(['GET', 'GET']);
  });

  it('returns an error under a HyperFleet 503 storm, so Pub/Sub redelivers', async () => {
    const { id } = seedReadyCluster(hyperfleet, { name: 'storm' });
    hyperfleet.faults.add({
      match: `GET /api/hyperfleet/v1/clusters/${id}`,
      count: 20,
      status: 503,
    });
    expect(await deliver(pushPubSub(url, sentinelEvent(id, 1)))).toBe(500);
    expect(executionsFor(id)).toHaveLength(0);
    hyperfleet.faults.clear();
    expect(await deliver(pushPubSub(url, sentinelEvent(id, 1)))).toBe(204);
    expect(executionsFor(id)).toHaveLength(1);
  });

  it('returns an error when CreateTask fails UNAVAILABLE, so Pub/Sub redelivers', async () => {
    const unavailable = seedReadyCluster(hyperfleet, { name: 'tasks-unavailable' });
    tasks.faults.add({ match: 'CreateTask', count: 1, status: 'UNAVAILABLE' });
    expect(await deliver(pushPubSub(url, sentinelEvent(unavailable.id, 1)))).toBe(500);
    expect(executionsFor(unavailable.id)).toHaveLength(0);
    // The redelivery queues the same named task: one launch in all.
    expect(await deliver(pushPubSub(url, sentinelEvent(unavailable.id, 1)))).toBe(204);
    expect(executionsFor(unavailable.id)).toHaveLength(1);
  });

  it("reports a RunJob the launcher may not make as Health=False with Cloud Run's reason, and stops the queue's retries", async () => {
    const denied = seedReadyCluster(hyperfleet, { name: 'run-denied' });
    cloudRun.faults.add({
      match: 'RunJob',
      count: 1,
      status: 'PERMISSION_DENIED',
      message: "Permission 'run.jobs.runWithOverrides' denied",
    });
    expect(await deliver(pushPubSub(url, sentinelEvent(denied.id, 1)))).toBe(204);
    expect(executionsFor(denied.id)).toHaveLength(0);
    // Sentinel's next event: GetTask shows the refusal.
    expect(await deliver(pushPubSub(url, sentinelEvent(denied.id, 1)))).toBe(204);
    expect(await own(denied.id)).toMatchObject({
      available: 'False',
      availableReason: 'PermissionDenied',
      health: 'False',
      data: { failure_kind: 'permanent', attempt: 1 },
    });
    const message = (await hyperFleetClient(hyperfleet).listStatuses(denied.id))
      .find((s) => s.adapter === 'pullsecret')
      ?.conditions.find((c) => c.type === 'Health')?.message;
    expect(message).toContain('PERMISSION_DENIED');
    expect(message).toContain('launcher service account');
    // The task is gone (deleted), so the queue makes no further RunJob for it.
    expect(tasks.book.tasksOf(TEST_LAUNCH_QUEUE)).toHaveLength(0);
    // A later event within PERMANENT_FAILURE_RETRY_INTERVAL launches nothing.
    expect(await deliver(pushPubSub(url, sentinelEvent(denied.id, 1)))).toBe(204);
    expect(executionsFor(denied.id)).toHaveLength(0);
  });

  it('acknowledges a malformed message with one warning and no side effect', async () => {
    hyperfleet.requests.clear();
    const before = cloudRun.executions.size;
    const lines = logger.lines.length;
    expect(
      await pushPubSub(url, undefined, { raw: Buffer.from('{"truncated": ').toString('base64') }),
    ).toBe(204);
    expect(hyperfleet.requests.list()).toEqual([]);
    expect(cloudRun.executions.size).toBe(before);
    const logged = logger.lines.slice(lines);
    expect(logged).toEqual([
      expect.objectContaining({ level: 'warn', message: expect.stringContaining('not JSON') }),
    ]);
  });

  it('ignores node pool events at debug level', async () => {
    hyperfleet.requests.clear();
    expect(
      await pushPubSub(url, sentinelEvent('c', 1, 'com.redhat.hyperfleet.nodepool.reconcile')),
    ).toBe(204);
    expect(hyperfleet.requests.list()).toEqual([]);
    expect(logger.lines.at(-1)).toMatchObject({
      level: 'debug',
      message: expect.stringContaining('node pool'),
    });
  });

  it('reports a cluster in the older spec shape and an invalid placement namespace', async () => {
    const older = seedReadyCluster(hyperfleet, {
      name: 'older-shape',
      spec: {
        provider: 'gcp',
        gcp: { projectId: 'legacy-project' },
        pullSecret: { data: '{"auths":{}}' },
      },
    });
    await deliver(pushPubSub(url, sentinelEvent(older.id, 1)));
    expect(executionsFor(older.id)[0]?.env.GCP_PROJECT_ID).toBe('legacy-project');
    const bad = seedReadyCluster(hyperfleet, {
      name: 'bad-namespace',
      spec: readySpec(),
      namespace: 'Not_A_Label',
    });
    await pushPubSub(url, sentinelEvent(bad.id, 1));
    expect(executionsFor(bad.id)).toHaveLength(0);
    expect(await own(bad.id)).toMatchObject({
      availableReason: 'InvalidManagementNamespace',
      health: 'False',
    });
  });

  it("passes placement's data.managementCluster as MANAGEMENT_CLUSTER, and refuses one that is not a DNS label", async () => {
    const placed = seedReadyCluster(hyperfleet, { name: 'placed-on-mgmt-2' });
    hyperfleet.store.reportAdapter(placed.id, 'placement', {
      available: 'True',
      data: { namespace: `clusters-${placed.id}`, managementCluster: 'mgmt-2' },
    });
    await deliver(pushPubSub(url, sentinelEvent(placed.id, 1)));
    expect(executionsFor(placed.id)[0]?.env).toMatchObject({
      MANAGEMENT_CLUSTER: 'mgmt-2',
      MANAGEMENT_NAMESPACE: `clusters-${placed.id}`,
    });

    const bad = seedReadyCluster(hyperfleet, { name: 'bad-management-cluster' });
    hyperfleet.store.reportAdapter(bad.id, 'placement', {
      available: 'True',
      data: { namespace: `clusters-${bad.id}`, managementCluster: 'Mgmt_2' },
    });
    await pushPubSub(url, sentinelEvent(bad.id, 1));
    expect(executionsFor(bad.id)).toHaveLength(0);
    const status = await own(bad.id);
    expect(status).toMatchObject({ availableReason: 'InvalidManagementCluster', health: 'False' });
    const statuses = await hyperFleetClient(hyperfleet).listStatuses(bad.id);
    expect(
      statuses
        .find((s) => s.adapter === 'pullsecret')
        ?.conditions.find((c) => c.type === 'Available')?.message,
    ).toContain('data.managementCluster "Mgmt_2"');
  });
});
