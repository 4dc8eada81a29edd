import { randomUUID } from 'node:crypto';
import { createAdapterHandler } from '../../../functions/adapter/flows/handle-event';
import { LaunchRate } from '../../../functions/adapter/cloud-run/launch-rate';
import {
  compilePreconditions,
  DEFAULT_PRECONDITIONS,
} from '../../../functions/adapter/decision/preconditions';
import { startCloudRunEmulator, type CloudRunEmulator } from '../../../emulators/cloud-run/server';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import { buildStatus } from '../../../shared/status/status-builder';
import { ALL_OUTCOMES } from '../../fixtures/status-outcomes';
import { cloudRunClients, SCRIPTED_TASK, TEST_JOB } from '../../helpers/cloud-run';
import { sentinelEvent } from '../../helpers/events';
import { hyperFleetClient, seedReadyCluster } from '../../helpers/hyperfleet';
import { RecordingLogger } from '../../helpers/recording-logger';
import {
  TEST_DECISION_SETTINGS,
  TEST_PULL_SECRET_PATHS,
  cloudRunAdapterPorts,
} from '../../helpers/adapter';

/** The Pub/Sub envelope Eventarc delivers. */
const delivery = (clusterId: string, generation = 1) => ({
  type: 'google.cloud.pubsub.topic.v1.messagePublished',
  id: randomUUID(),
  source: '//pubsub.googleapis.com/projects/demo-project/topics/clusters',
  specversion: '1.0',
  data: {
    message: {
      data: Buffer.from(JSON.stringify(sentinelEvent(clusterId, generation))).toString('base64'),
      messageId: randomUUID(),
    },
  },
});

/**
 * The adapter's launch rate against the Cloud Run emulator with its RunJob quota on, both on one
 * hand-moved clock: with the rate below the quota nothing is refused; with the quota spent by
 * someone else, the refused new work is redelivered, resyncs give way, and the pause spares RunJob.
 */
describe('adapter: launches respect the RunJob quota', () => {
  let hyperfleet: HyperFleetApiEmulator;
  let cloudRun: CloudRunEmulator;
  let clients: ReturnType<typeof cloudRunClients>;
  let nowMs = Date.parse('2026-11-26T12:00:00Z');
  const now = () => nowMs;

  beforeAll(async () => {
    hyperfleet = await startHyperFleetApiEmulator({ now: () => new Date(nowMs) });
    cloudRun = await startCloudRunEmulator({
      jobs: [
        {
          name: TEST_JOB,
          command: [process.execPath, SCRIPTED_TASK],
          env: { TASK_BEHAVIOUR: 'succeed' },
          maxRetries: 0,
          timeoutSeconds: 30,
        },
      ],
      now,
    });
    clients = cloudRunClients(cloudRun.endpoint);
  });
  afterAll(async () => {
    await clients.jobs.close();
    await clients.executions.close();
    await cloudRun.stop();
    await hyperfleet.stop();
  });

  const adapter = (rate: LaunchRate, logger: RecordingLogger) =>
    createAdapterHandler({
      hyperfleet: hyperFleetClient(hyperfleet, { logger, retryAttempts: 2 }),
      ...cloudRunAdapterPorts(clients, logger),
      launchRetry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
      preconditions: compilePreconditions(DEFAULT_PRECONDITIONS),
      // A resync every 10 minutes: the API takes reports up to 30 minutes old.
      settings: { ...TEST_DECISION_SETTINGS, resyncIntervalMs: 10 * 60_000 },
      pullSecret: TEST_PULL_SECRET_PATHS,
      logger,
      now: () => new Date(nowMs),
      launchRate: rate,
    });
  const executionsOf = (id: string) =>
    [...cloudRun.executions.values()].filter((e) => e.env.CLUSTER_ID === id);
  const refusedRunJobs = () =>
    cloudRun.requests.list().filter((r) => r.method === 'RunJob' && r.outcome !== 'OK').length;

  it('with the rate below the quota, a burst launches every cluster once and Cloud Run refuses nothing', async () => {
    cloudRun.quota.set(6);
    const logger = new RecordingLogger();
    const handle = adapter(new LaunchRate({ perMinute: 5, instances: 1 }, now), logger);
    const ids = Array.from(
      { length: 12 },
      (_, i) => seedReadyCluster(hyperfleet, { name: `burst-${i}` }).id,
    );
    const launchedAt: number[] = [];
    // Sentinel's rule: every 10 s an event for each cluster not yet launched; a failed delivery
    // is simply redelivered with the next round.
    for (
      let round = 0;
      round < 20 * 6 && ids.some((id) => executionsOf(id).length === 0);
      round++
    ) {
      for (const id of ids.filter((c) => executionsOf(c).length === 0)) {
        const before = cloudRun.executions.size;
        await handle(delivery(id));
        if (cloudRun.executions.size > before) launchedAt.push(nowMs);
      }
      nowMs += 10_000;
    }
    for (const id of ids) expect(executionsOf(id)).toHaveLength(1);
    expect(refusedRunJobs()).toBe(0);
    // Deferred launches are acknowledged (Sentinel's next re-send launches them), never failed.
    expect(
      logger.lines.filter((l) => l.fields?.decision === 'launch-deferred').length,
    ).toBeGreaterThan(0);
    // At most 5 launches in any 60 s, so 12 took over two minutes.
    for (const at of launchedAt)
      expect(launchedAt.filter((t) => t >= at && t < at + 60_000).length).toBeLessThanOrEqual(5);
    expect(launchedAt.at(-1)! - launchedAt[0]!).toBeGreaterThanOrEqual(120_000);
  }, 60_000);

  it('when the quota is spent, the refused launch is redelivered, a resync gives way quietly, and the pause spares RunJob', async () => {
    nowMs += 120_000;
    cloudRun.quota.set(1);
    cloudRun.requests.clear();
    const logger = new RecordingLogger();
    // No rate of our own (someone else spends the quota): only the pause after a refusal.
    const handle = adapter(new LaunchRate({ perMinute: 0, instances: 1 }, now), logger);
    const [first, second, third] = ['spent-1', 'spent-2', 'spent-3'].map(
      (name) => seedReadyCluster(hyperfleet, { name }).id,
    );
    await handle(delivery(first!));
    expect(executionsOf(first!)).toHaveLength(1);
    await expect(handle(delivery(second!))).rejects.toMatchObject({ reason: 'QuotaExceeded' });
    expect(refusedRunJobs()).toBe(1);
    // Re-sends within the pause never reach Cloud Run: acknowledged, left to the next one.
    const deferredBefore = logger.lines.filter(
      (l) => l.fields?.decision === 'launch-deferred',
    ).length;
    await handle(delivery(second!));
    expect(refusedRunJobs()).toBe(1);
    expect(logger.lines.filter((l) => l.fields?.decision === 'launch-deferred')).toHaveLength(
      deferredBefore + 1,
    );

    // A converged cluster due for its resync gives way: acknowledged, one info line, no RunJob.
    const observed = new Date(nowMs - 20 * 60_000);
    await hyperFleetClient(hyperfleet).putStatus(
      third!,
      buildStatus(ALL_OUTCOMES.succeeded!, 1, observed),
    );
    await handle(delivery(third!));
    expect(executionsOf(third!)).toHaveLength(0);
    expect(logger.lines.some((e) => e.fields?.decision === 'launch-deferred')).toBe(true);

    // A minute later the quota has room: the redelivery of the new generation launches it.
    nowMs += 61_000;
    await handle(delivery(second!));
    expect(executionsOf(second!)).toHaveLength(1);
    expect(refusedRunJobs()).toBe(1);
  }, 60_000);
});
