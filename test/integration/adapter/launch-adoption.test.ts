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
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import type { StatusOutcome } from '../../../shared/status/outcome';
import { readOwnStatus } from '../../../shared/status/own-status';
import { buildStatus } from '../../../shared/status/status-builder';
import { cloudRunClients, TEST_JOB, hangingTestJob } from '../../helpers/cloud-run';
import { pushPubSub, sentinelEvent } from '../../helpers/events';
import { hyperFleetClient, seedReadyCluster } from '../../helpers/hyperfleet';
import { RecordingLogger } from '../../helpers/recording-logger';
import {
  TEST_DECISION_SETTINGS,
  TEST_PULL_SECRET_PATHS,
  cloudRunAdapterPorts,
} from '../../helpers/adapter';

/**
 * One execution per cluster, generation and operation, against the real clients and emulators:
 * lost RunJob answers, a redelivery that finds only the intent, abandoned intents, and executions
 * that never report (GetExecution). Every case counts the executions Cloud Run holds.
 */
describe('adapter: launch intent, adoption and silent executions', () => {
  let hyperfleet: HyperFleetApiEmulator;
  let cloudRun: CloudRunEmulator;
  let clients: ReturnType<typeof cloudRunClients>;
  let server: Server;
  let url: string;
  let logger: RecordingLogger;

  beforeAll(async () => {
    hyperfleet = await startHyperFleetApiEmulator();
    cloudRun = await startCloudRunEmulator({
      jobs: [hangingTestJob()],
    });
    clients = cloudRunClients(cloudRun.endpoint);
    logger = new RecordingLogger();
    const handler = createAdapterHandler({
      hyperfleet: hyperFleetClient(hyperfleet, { logger, retryAttempts: 2 }),
      ...cloudRunAdapterPorts(clients, logger),
      launchRetry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
      preconditions: compilePreconditions(DEFAULT_PRECONDITIONS),
      settings: { ...TEST_DECISION_SETTINGS, executionCheckAfterMs: 60_000 },
      pullSecret: TEST_PULL_SECRET_PATHS,
      logger,
    });
    functions.cloudEvent('adoption-under-test', (event: CloudEventV1<unknown>) => handler(event));
    server = getTestServer('adoption-under-test');
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.close();
    await clients.jobs.close();
    await clients.executions.close();
    await cloudRun.stop();
    await hyperfleet.stop();
  });
  beforeEach(() => {
    hyperfleet.faults.clear();
    cloudRun.faults.clear();
    cloudRun.requests.clear();
  });

  const own = async (id: string) =>
    readOwnStatus(await hyperFleetClient(hyperfleet).listStatuses(id));
  const executionsFor = (id: string) =>
    [...cloudRun.executions.values()].filter((e) => e.env.CLUSTER_ID === id);
  const cloudRunCalls = () => cloudRun.requests.list().map((r) => `${r.method}:${r.outcome}`);
  const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
  const seedStatus = (id: string, outcome: StatusOutcome, observed: Date) =>
    expect(hyperfleet.store.putStatus(id, buildStatus(outcome, 1, observed))).toMatchObject({
      stored: true,
    });
  const runDirectly = async (env: Record<string, string>) => {
    const [operation] = await clients.jobs.runJob({
      name: TEST_JOB,
      overrides: {
        containerOverrides: [
          { env: Object.entries(env).map(([name, value]) => ({ name, value })) },
        ],
      },
    });
    return (operation.metadata as { name: string }).name;
  };

  it('a clean launch is one Cloud Run call, after the intent is recorded', async () => {
    const { id } = seedReadyCluster(hyperfleet, { name: 'clean-launch' });
    expect(await pushPubSub(url, sentinelEvent(id, 1))).toBe(204);
    expect(cloudRunCalls()).toEqual(['RunJob:OK']);
    const [execution] = executionsFor(id);
    expect(await own(id)).toMatchObject({
      availableReason: 'JobRunning',
      data: { execution: execution!.name, launch_id: execution!.env.LAUNCH_ID },
    });
  });

  it.each(['DEADLINE_EXCEEDED', 'UNAVAILABLE'])(
    'RunJob answering %s after creating the execution: the execution is adopted, not launched again',
    async (code) => {
      const { id } = seedReadyCluster(hyperfleet, {
        name: `lost-${code.toLowerCase().replace('_', '-')}`,
      });
      cloudRun.faults.add({ match: 'RunJob', status: code, after: true });
      expect(await pushPubSub(url, sentinelEvent(id, 1))).toBe(204);
      expect(cloudRunCalls()).toEqual([`RunJob:${code}`, 'ListExecutions:OK']);
      const executions = executionsFor(id);
      expect(executions).toHaveLength(1);
      expect(await own(id)).toMatchObject({
        availableReason: 'JobRunning',
        data: { execution: executions[0]!.name, attempt: 1 },
      });
      expect(logger.lines.some((l) => l.fields.decision === 'adopt')).toBe(true);
    },
  );

  it('a redelivery that finds only the intent adopts the execution carrying its launch id', async () => {
    const { id } = seedReadyCluster(hyperfleet, { name: 'intent-only' });
    const since = minutesAgo(0.5);
    seedStatus(
      id,
      {
        kind: 'launching',
        operation: 'apply',
        launchId: 'launch-abc',
        attempt: 1,
        since: since.toISOString(),
      },
      since,
    );
    const name = await runDirectly({
      CLUSTER_ID: id,
      GENERATION: '1',
      OPERATION: 'apply',
      LAUNCH_ATTEMPT: '1',
      LAUNCH_ID: 'launch-abc',
    });
    cloudRun.requests.clear();
    expect(await pushPubSub(url, sentinelEvent(id, 1))).toBe(204);
    expect(cloudRunCalls()).toEqual(['ListExecutions:OK']);
    expect(executionsFor(id)).toHaveLength(1);
    expect(await own(id)).toMatchObject({
      availableReason: 'JobRunning',
      data: { execution: name, launch_id: 'launch-abc' },
    });
  });

  it('an intent without execution is left to its instance within the grace, relaunched once abandoned', async () => {
    const { id } = seedReadyCluster(hyperfleet, { name: 'intent-pending' });
    const since = minutesAgo(0.2);
    const intent = {
      kind: 'launching',
      operation: 'apply',
      launchId: 'launch-pending',
      attempt: 1,
      since: since.toISOString(),
    } as const;
    seedStatus(id, intent, since);
    expect(await pushPubSub(url, sentinelEvent(id, 1))).toBe(204);
    expect(executionsFor(id)).toHaveLength(0);
    expect((await own(id))?.availableReason).toBe('JobLaunching');

    seedStatus(
      id,
      { ...intent, abandoned: { reason: 'CloudRunUnavailable', message: 'down' } },
      since,
    );
    expect(await pushPubSub(url, sentinelEvent(id, 1))).toBe(204);
    const executions = executionsFor(id);
    expect(executions).toHaveLength(1);
    expect(executions[0]!.env.LAUNCH_ATTEMPT).toBe('2');
  });

  it('an execution that finished but never reported is reported from GetExecution, without a relaunch', async () => {
    const { id } = seedReadyCluster(hyperfleet, { name: 'never-reported' });
    const name = await runDirectly({
      TASK_BEHAVIOUR: 'succeed',
      CLUSTER_ID: id,
      GENERATION: '1',
      OPERATION: 'apply',
      LAUNCH_ATTEMPT: '1',
      GCP_PROJECT_ID: 'demo-project',
    });
    await cloudRun.waitForExecution(name);
    const launchedAt = minutesAgo(5);
    seedStatus(
      id,
      {
        kind: 'launched',
        operation: 'apply',
        execution: name,
        launchedAt: launchedAt.toISOString(),
        attempt: 1,
      },
      launchedAt,
    );
    cloudRun.requests.clear();
    expect(await pushPubSub(url, sentinelEvent(id, 1))).toBe(204);
    expect(cloudRunCalls()).toEqual(['GetExecution:OK']);
    expect(executionsFor(id)).toHaveLength(1);
    expect(await own(id)).toMatchObject({ available: 'True', data: { execution: name } });
  });

  it('a silent execution Cloud Run no longer has is relaunched with attempt+1; a running one is left alone', async () => {
    const { id } = seedReadyCluster(hyperfleet, { name: 'gone-execution' });
    const launchedAt = minutesAgo(5);
    const launched = {
      kind: 'launched',
      operation: 'apply',
      launchedAt: launchedAt.toISOString(),
      attempt: 1,
    } as const;
    const running = await runDirectly({ CLUSTER_ID: id, GENERATION: '1', LAUNCH_ATTEMPT: '1' });
    seedStatus(id, { ...launched, execution: running }, launchedAt);
    expect(await pushPubSub(url, sentinelEvent(id, 1))).toBe(204);
    expect(executionsFor(id)).toHaveLength(1);
    expect((await own(id))?.data.execution).toBe(running);

    seedStatus(id, { ...launched, execution: `${TEST_JOB}/executions/deleted-one` }, launchedAt);
    expect(await pushPubSub(url, sentinelEvent(id, 1))).toBe(204);
    const relaunched = executionsFor(id).filter((e) => e.name !== running);
    expect(relaunched).toHaveLength(1);
    expect(relaunched[0]!.env.LAUNCH_ATTEMPT).toBe('2');
  });
});
