// Issue 41, fleet alerts (terraform/modules/pullsecret-adapter/fleet-alerts.tf): each metric's
// filter, as Terraform renders it, is evaluated (test/helpers/logging-filter.ts) on the Cloud
// Logging entries the real code writes through the real logger, as Cloud Run turns stdout into
// entries: the adapter's decision lines (the fleet report's waiting state and its age), the
// adapter's and the reporter's status writes (a permanent failure), and entries of the shapes the
// rotation's code writes (default-pull-secret-revoked, batch-finished). And on what it must not
// count: a cluster waiting less than the threshold, a converged one, one we have not seen yet.
import fs from 'node:fs';
import path from 'node:path';
import {
  compilePreconditions,
  DEFAULT_PRECONDITIONS,
} from '../../functions/adapter/decision/preconditions';
import { createAdapterHandler } from '../../functions/adapter/flows/handle-event';
import type {
  EnqueueResult,
  LaunchQueue,
  QueuedTask,
} from '../../functions/adapter/launch-queue/launch-queue';
import { createReporterHandler } from '../../functions/reporter/report/handle-report';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../emulators/hyperfleet-api/server';
import type { ExecutionReader } from '../../shared/executions/execution-reader';
import { PUBSUB_MESSAGE_PUBLISHED } from '../../shared/events/decode';
import { GrpcStatus } from '../../shared/gcp/grpc-status';
import { RESULT_MESSAGE_TYPE, type JobResult } from '../../shared/job-result';
import type { RootLogger } from '../../shared/logging/logger';
import { buildStatus } from '../../shared/status/status-builder';
import { TEST_DECISION_SETTINGS, TEST_PULL_SECRET_PATHS } from '../helpers/adapter';
import { TEST_JOB } from '../helpers/cloud-run';
import { jobLogEntries, serviceLogEntries } from '../helpers/cloud-run-log-entry';
import { sentinelEvent } from '../helpers/events';
import { hyperFleetClient, seedReadyCluster } from '../helpers/hyperfleet';
import { matchesLoggingFilter } from '../helpers/logging-filter';
import { extracted, renderedMetric } from '../helpers/terraform-metric-filter';

type Entry = Record<string, unknown>;
const MINUTE = 60_000;
const T0 = Date.parse('2026-11-23T10:00:00.000Z');
const THRESHOLDS = { not_converged_after_seconds: 1800, stuck_preconditions_after_seconds: 1800 };
const PLACE = { project: 'platform-project', namePrefix: 'pullsecret', monitoring: THRESHOLDS };
const ADAPTER = { name: 'pullsecret-adapter', project: PLACE.project, component: 'adapter' };
const REPORTER = { name: 'pullsecret-reporter', project: PLACE.project, component: 'reporter' };

class NoExecutions implements ExecutionReader {
  async read(): Promise<undefined> {
    return undefined;
  }
}

/** A launch queue whose tasks wait undispatched, except those refused as scripted. */
class WaitingQueue implements LaunchQueue {
  readonly refused = new Set<string>();
  async enqueue(): Promise<EnqueueResult> {
    return 'queued';
  }
  async enqueueBatch(): Promise<EnqueueResult> {
    return 'queued';
  }
  async inspect(task: string): Promise<QueuedTask | undefined> {
    return this.refused.has(task)
      ? {
          dispatchCount: 1,
          lastAttempt: { code: GrpcStatus.PERMISSION_DENIED, message: 'Permission denied' },
        }
      : { dispatchCount: 0 };
  }
  async cancel(): Promise<void> {}
}

const pubsub = (data: unknown, attributes: Record<string, string> = {}) => ({
  id: `m-${Math.random()}`,
  type: PUBSUB_MESSAGE_PUBLISHED,
  source: '//pubsub.googleapis.com/projects/p/topics/t',
  specversion: '1.0',
  data: { message: { data: Buffer.from(JSON.stringify(data)).toString('base64'), attributes } },
});

describe('fleet alerts: the metrics count what the code logs', () => {
  let clock = T0;
  const now = () => new Date(clock);
  let hyperfleet: HyperFleetApiEmulator;
  const queue = new WaitingQueue();
  const api = () => hyperFleetClient(hyperfleet);
  const adapter = (logger: RootLogger) =>
    createAdapterHandler({
      hyperfleet: api(),
      launchQueue: { queue, name: 'projects/p/locations/l/queues/q', jobName: TEST_JOB },
      lookup: new NoExecutions(),
      preconditions: compilePreconditions(DEFAULT_PRECONDITIONS),
      settings: TEST_DECISION_SETTINGS,
      pullSecret: TEST_PULL_SECRET_PATHS,
      logger,
      now,
    });
  /** One Sentinel event for each id, at `at`: the adapter's entries. */
  const events = async (ids: readonly string[], at: number): Promise<Entry[]> => {
    clock = at;
    return serviceLogEntries(ADAPTER, async (logger) => {
      for (const id of ids) await adapter(logger)(pubsub(sentinelEvent(id, 1)));
    });
  };
  const matched = async (metric: string, entries: readonly Entry[]) => {
    const { filter } = await renderedMetric(metric, PLACE);
    return entries.filter((entry) => matchesLoggingFilter(filter, entry));
  };
  const label = async (metric: string, name: string, entries: readonly Entry[]) => {
    const { labelExtractors } = await renderedMetric(metric, PLACE);
    return (await matched(metric, entries)).map((e) => extracted(labelExtractors[name]!, e));
  };
  const ofCluster = (entries: readonly Entry[], id: string) =>
    entries.filter(
      (e) => (e.jsonPayload as { metadata?: { cluster_id?: string } }).metadata?.cluster_id === id,
    );

  beforeAll(async () => {
    hyperfleet = await startHyperFleetApiEmulator({ now });
  });
  afterAll(() => hyperfleet.stop());

  it('the thresholds are module variables whose defaults match `fleet report`', () => {
    const variables = fs.readFileSync(
      path.join(__dirname, '../../terraform/modules/pullsecret-adapter/variables.tf'),
      'utf8',
    );
    expect(variables).toMatch(/not_converged_after_seconds\s+= optional\(number, 1800\)/);
    expect(variables).toMatch(/stuck_preconditions_after_seconds\s+= optional\(number, 1800\)/);
    const args = fs.readFileSync(path.join(__dirname, '../../functions/fleet/args.ts'), 'utf8');
    expect(args).toContain("const DEFAULT_NOT_CONVERGED_AFTER = '30m';");
  });

  it('clusters_waiting_too_long: stuck in PreconditionsNotMet or queued past the threshold, by state', async () => {
    clock = T0;
    const stuck = seedReadyCluster(hyperfleet, { name: 'stuck', dns: 'False' }).id;
    const queued = seedReadyCluster(hyperfleet, { name: 'queued' }).id;
    const converged = seedReadyCluster(hyperfleet, { name: 'converged' }).id;
    // The first events: not-met reported, a launch queued; converged by hand.
    const first = await events([stuck, queued, converged], T0 + MINUTE);
    await api().putStatus(
      converged,
      buildStatus(
        {
          kind: 'succeeded',
          execution: `${TEST_JOB}/executions/e-1`,
          provisioned: { secretPath: 'projects/demo-project/secrets/hyperfleet-x-pull-secret' },
          timing: { completedAt: new Date(T0 + 2 * MINUTE).toISOString() },
        },
        1,
        new Date(T0 + 2 * MINUTE),
      ),
    );
    // Ten minutes in: waiting, not yet past the threshold. Forty: past it.
    const early = await events([stuck, queued, converged], T0 + 10 * MINUTE);
    const late = await events([stuck, queued, converged], T0 + 40 * MINUTE);

    const metric = 'clusters_waiting_too_long';
    // Never a first sight (state pending: the wait before the adapter saw the cluster), never early.
    expect(await matched(metric, first)).toEqual([]);
    expect(await matched(metric, early)).toEqual([]);
    expect(await matched(metric, ofCluster(late, converged))).toEqual([]);
    const lines = await matched(metric, late);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(new Set(await label(metric, 'waiting', ofCluster(late, stuck)))).toEqual(
      new Set(['preconditions-not-met']),
    );
    expect(new Set(await label(metric, 'waiting', ofCluster(late, queued)))).toEqual(
      new Set(['queued']),
    );
    // The decision lines carry the report's age: since the status went False, 39 minutes.
    const stuckLine = ofCluster(lines, stuck)[0]!.jsonPayload as { metadata: Entry };
    expect(stuckLine.metadata).toMatchObject({
      waiting: 'preconditions-not-met',
      waiting_seconds: 39 * 60,
    });
    expect(ofCluster(late, converged).every((e) => !JSON.stringify(e).includes('waiting'))).toBe(
      true,
    );
  });

  it('the stuck-preconditions threshold is its own', async () => {
    const { filter } = await renderedMetric('clusters_waiting_too_long', {
      ...PLACE,
      monitoring: { ...THRESHOLDS, stuck_preconditions_after_seconds: 7200 },
    });
    const line = (waiting: string, seconds: number): Entry => ({
      resource: { type: 'cloud_run_revision', labels: { service_name: 'pullsecret-adapter' } },
      jsonPayload: {
        metadata: { decision: 'already-reported', waiting, waiting_seconds: seconds },
      },
    });
    expect(matchesLoggingFilter(filter, line('preconditions-not-met', 3600))).toBe(false);
    expect(matchesLoggingFilter(filter, line('preconditions-not-met', 7200))).toBe(true);
    expect(matchesLoggingFilter(filter, line('running', 3600))).toBe(true);
    expect(matchesLoggingFilter(filter, line('pending', 90_000))).toBe(false);
  });

  it('permanent_failures: a refused launch (adapter) and a job failing for good (reporter), by reason', async () => {
    clock = T0;
    const refused = seedReadyCluster(hyperfleet, { name: 'refused' }).id;
    await events([refused], T0 + MINUTE);
    const task = (await api().listStatuses(refused)).find((s) => s.adapter === 'pullsecret')?.data
      ?.task as string;
    queue.refused.add(task);
    const adapterEntries = await events([refused], T0 + 5 * MINUTE);

    clock = T0;
    const invalid = seedReadyCluster(hyperfleet, { name: 'invalid' }).id;
    await api().putStatus(
      invalid,
      buildStatus(
        {
          kind: 'launched',
          operation: 'apply',
          execution: `${TEST_JOB}/executions/exec-p`,
          launchedAt: new Date(T0).toISOString(),
          attempt: 1,
        },
        1,
        new Date(T0),
      ),
    );
    clock = T0 + 2 * MINUTE;
    const result = (clusterId: string, failureKind: 'permanent' | 'transient'): JobResult => ({
      outcome: 'failed',
      operation: 'apply',
      dry_run: false,
      cluster_id: clusterId,
      generation: 1,
      execution: 'exec-p',
      attempt: 1,
      phases: [],
      reason: failureKind === 'permanent' ? 'InvalidPullSecret' : 'SecretManagerUnavailable',
      message: 'The pull secret is not a dockerconfigjson',
      failure_kind: failureKind,
      durations_ms: { total: 100 },
      finished_at: new Date(T0 + MINUTE).toISOString(),
    });
    const reporterEntries = await serviceLogEntries(REPORTER, async (logger) => {
      const reporter = createReporterHandler({
        hyperfleet: api(),
        executions: new NoExecutions(),
        jobName: TEST_JOB,
        logger,
        now,
      });
      await reporter(pubsub(result(invalid, 'permanent'), { type: RESULT_MESSAGE_TYPE }));
    });

    const metric = 'permanent_failures';
    expect(await label(metric, 'reason', adapterEntries)).toEqual(['PermissionDenied']);
    expect(await label(metric, 'reason', reporterEntries)).toEqual(['InvalidPullSecret']);
    // A transient failure is not counted.
    clock = T0;
    const transient = seedReadyCluster(hyperfleet, { name: 'transient' }).id;
    await api().putStatus(
      transient,
      buildStatus(
        {
          kind: 'launched',
          operation: 'apply',
          execution: `${TEST_JOB}/executions/exec-p`,
          launchedAt: new Date(T0).toISOString(),
          attempt: 1,
        },
        1,
        new Date(T0),
      ),
    );
    clock = T0 + 2 * MINUTE;
    const transientEntries = await serviceLogEntries(REPORTER, async (logger) => {
      await createReporterHandler({
        hyperfleet: api(),
        executions: new NoExecutions(),
        jobName: TEST_JOB,
        logger,
        now,
      })(pubsub(result(transient, 'transient'), { type: RESULT_MESSAGE_TYPE }));
    });
    expect(transientEntries.some((e) => JSON.stringify(e).includes('status_write'))).toBe(true);
    expect(await matched(metric, transientEntries)).toEqual([]);
  });

  it('default_pull_secret_revoked: the ERROR entry the rotation writes, by event type', async () => {
    const revoked = (logger: RootLogger, eventType: string) =>
      logger.error('The platform default pull secret version in use was revoked; not fanning out', {
        event: 'default-pull-secret-revoked',
        secret: 'projects/platform-project/secrets/platform-pull-secret',
        version: 7,
        event_type: eventType,
      });
    const entries = await serviceLogEntries(ADAPTER, async (logger) => {
      revoked(logger, 'SECRET_VERSION_DISABLE');
      revoked(logger, 'SECRET_VERSION_DESTROY');
      // Not it: the same event at INFO, or another event.
      logger.info('noted', { event: 'default-pull-secret-revoked', event_type: 'X' });
      logger.error('other', { event: 'default-pull-secret-added' });
    });
    const metric = 'default_pull_secret_revoked';
    expect(await label(metric, 'event_type', entries)).toEqual([
      'SECRET_VERSION_DISABLE',
      'SECRET_VERSION_DESTROY',
    ]);
    // Another deployment's entry is not ours.
    const other = await serviceLogEntries({ ...ADAPTER, name: 'other-adapter' }, async (logger) =>
      revoked(logger, 'SECRET_VERSION_DISABLE'),
    );
    expect(await matched(metric, other)).toEqual([]);
  });

  it('batch_tasks_with_failures: a batch task that left clusters failed, by reason', async () => {
    const finished = (
      logger: RootLogger,
      reason: 'rotation' | 'resync',
      failed: number,
      taskIndex: number,
    ) =>
      logger.info('Batch task finished', {
        event: 'batch-finished',
        reason,
        selector: 'default',
        clusters_applied: 10 - failed,
        clusters_failed: failed,
        clusters_skipped: 0,
        task_index: taskIndex,
        task_count: 3,
      });
    const entries = await jobLogEntries(
      { name: 'pullsecret-batch', project: PLACE.project },
      async (logger) => {
        finished(logger, 'rotation', 0, 0);
        finished(logger, 'rotation', 2, 1);
        finished(logger, 'resync', 1, 2);
        // A task that stopped: its whole share is left.
        logger.error('Batch task stopped: the cluster list could not be read', {
          event: 'batch-failed',
          reason: 'rotation',
          selector: 'default',
          task_index: 2,
          task_count: 3,
        });
      },
    );
    expect(await label('batch_tasks_with_failures', 'reason', entries)).toEqual([
      'rotation',
      'resync',
      'rotation',
    ]);
  });
});
