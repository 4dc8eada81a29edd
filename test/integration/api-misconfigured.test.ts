// A wrong HyperFleet base URL or API version is never a silent skip: the adapter and the reporter
// log an ERROR naming the URL and what to check (the decision the Terraform metric counts), and
// nack the message (functions-framework answers 500, so Pub/Sub redelivers it later).
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import * as functions from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import type { CloudEventV1 } from 'cloudevents';
import { createAdapterHandler } from '../../functions/adapter/flows/handle-event';
import type {
  EnqueueResult,
  LaunchQueue,
  QueuedTask,
} from '../../functions/adapter/launch-queue/launch-queue';
import {
  compilePreconditions,
  DEFAULT_PRECONDITIONS,
} from '../../functions/adapter/decision/preconditions';
import type { ExecutionReader } from '../../shared/executions/execution-reader';
import { createReporterHandler } from '../../functions/reporter/report/handle-report';
import {
  DEV_TENANCY,
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../emulators/hyperfleet-api/server';
import { HyperFleetClient } from '../../shared/hyperfleet/client';
import { API_MISCONFIGURED_DECISION } from '../../shared/hyperfleet/misconfiguration';
import { RESULT_MESSAGE_TYPE } from '../../shared/job-result';
import { TEST_JOB } from '../helpers/cloud-run';
import { pushPubSub, sentinelEvent } from '../helpers/events';
import { seedReadyCluster } from '../helpers/hyperfleet';
import { RecordingLogger } from '../helpers/recording-logger';
import { TEST_DECISION_SETTINGS, TEST_PULL_SECRET_PATHS } from '../helpers/adapter';

/** Records launches; none may happen when the API cannot be read. */
class RecordingLauncher implements LaunchQueue {
  readonly launches: unknown[] = [];
  enqueueBatch(): Promise<EnqueueResult> {
    throw new Error('no batch launches in this test');
  }
  async enqueue(task: string): Promise<EnqueueResult> {
    this.launches.push(task);
    return 'queued';
  }
  async inspect(): Promise<QueuedTask | undefined> {
    return undefined;
  }
  async cancel(): Promise<void> {}
}

class NoExecutions implements ExecutionReader {
  async read(): Promise<undefined> {
    return undefined;
  }
}

const TOKEN = 'misconfigured-test-token';

describe('HyperFleet API misconfiguration: loud, counted and redelivered', () => {
  let hyperfleet: HyperFleetApiEmulator;
  const servers: Server[] = [];
  const logger = new RecordingLogger();
  const launcher = new RecordingLauncher();
  let adapterUrl: string;
  let reporterUrl: string;

  const serve = async (name: string, handler: (event: CloudEventV1<unknown>) => Promise<void>) => {
    functions.cloudEvent(name, handler);
    const server = getTestServer(name);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  beforeAll(async () => {
    hyperfleet = await startHyperFleetApiEmulator({
      tokens: { [TOKEN]: 'adapter@example.com' },
      tenancy: DEV_TENANCY,
    });
    // HYPERFLEET_API_VERSION=v2: a route the API does not serve.
    const api = new HyperFleetClient(
      {
        baseUrl: hyperfleet.baseUrl,
        version: 'v2',
        timeoutMs: 2000,
        retryAttempts: 3,
        auth: { kind: 'none' },
        caller: { kind: 'system', header: 'X-HyperFleet-System' },
      },
      { auth: { authorization: async () => `Bearer ${TOKEN}` }, logger, sleep: async () => {} },
    );
    adapterUrl = await serve(
      'misconfigured-adapter',
      createAdapterHandler({
        hyperfleet: api,
        launchQueue: {
          queue: launcher,
          name: 'projects/p/locations/l/queues/q',
          jobName: TEST_JOB,
        },
        lookup: new NoExecutions(),
        preconditions: compilePreconditions(DEFAULT_PRECONDITIONS),
        settings: TEST_DECISION_SETTINGS,
        pullSecret: TEST_PULL_SECRET_PATHS,
        logger,
      }),
    );
    reporterUrl = await serve(
      'misconfigured-reporter',
      createReporterHandler({
        hyperfleet: api,
        executions: new NoExecutions(),
        jobName: TEST_JOB,
        logger,
      }),
    );
  });
  afterAll(async () => {
    servers.forEach((s) => s.close());
    await hyperfleet.stop();
  });

  const misconfiguredLines = (from: number) =>
    logger.lines.slice(from).filter((l) => l.fields.decision === API_MISCONFIGURED_DECISION);

  it('the adapter nacks the event with an ERROR naming the URL; nothing is launched or skipped silently', async () => {
    const { id } = seedReadyCluster(hyperfleet, { name: 'misconfigured' });
    const from = logger.lines.length;
    expect(await pushPubSub(adapterUrl, sentinelEvent(id, 1))).toBe(500);
    const [line, ...more] = misconfiguredLines(from);
    expect(more).toEqual([]);
    expect(line?.level).toBe('error');
    expect(line?.fields.url).toBe(`${hyperfleet.baseUrl}/api/hyperfleet/v2/clusters/${id}`);
    expect(line?.fields.code).toBe('HYPERFLEET-NTF-000');
    expect(line?.message).toMatch(/check HYPERFLEET_API_BASE_URL .* HYPERFLEET_API_VERSION/);
    expect(logger.lines.slice(from).map((l) => l.fields.decision)).not.toContain('cluster-gone');
    expect(launcher.launches).toEqual([]);
  });

  it('the reporter nacks a job result the same way instead of dropping it', async () => {
    const from = logger.lines.length;
    const result = {
      outcome: 'failed',
      operation: 'apply',
      dry_run: false,
      cluster_id: 'c1',
      generation: 1,
      execution: 'exec-1',
      attempt: 1,
      phases: [],
      reason: 'InvalidPullSecret',
      message: 'bad',
      failure_kind: 'permanent',
      durations_ms: { total: 1 },
      finished_at: new Date().toISOString(),
    };
    expect(
      await pushPubSub(reporterUrl, result, {
        topic: 'pullsecret-job-results',
        attributes: { type: RESULT_MESSAGE_TYPE },
      }),
    ).toBe(500);
    const lines = misconfiguredLines(from);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.fields.url).toBe(
      `${hyperfleet.baseUrl}/api/hyperfleet/v2/clusters/c1/statuses`,
    );
  });
});
