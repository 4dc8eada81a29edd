// Retries stay bounded without a dead-letter policy (Eventarc's subscription has none): the
// compiled adapter and reporter, run by functions-framework as in Cloud Run, acknowledge an event
// that keeps failing once EVENT_MAX_FAILURES is reached, and an old event at once, each with one
// ERROR line `decision: "retry-bound-exceeded"` that a log-based metric counts.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ReadyProcess } from '../../emulators/common/child-process';
import { freePort } from '../../emulators/common/free-port';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../emulators/hyperfleet-api/server';
import { startFunctionProcess } from '../../emulators/pullsecret/stack/function-process';
import { RESULT_MESSAGE_TYPE } from '../../shared/job-result';
import { sentinelEvent } from '../helpers/events';
import { seedReadyCluster } from '../helpers/hyperfleet';
import { ROOT } from '../helpers/run-process';

const JOB = 'projects/demo-project/locations/us-central1/jobs/pullsecret-job';

describe('bounded retries in the deployed functions (EVENT_MAX_AGE, EVENT_MAX_FAILURES)', () => {
  let hyperfleet: HyperFleetApiEmulator;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'retry-bounds-'));
  const functionsUnderTest: Record<'adapter' | 'reporter', { url: string; log: string }> = {
    adapter: { url: '', log: path.join(dir, 'adapter.log') },
    reporter: { url: '', log: path.join(dir, 'reporter.log') },
  };
  const processes: ReadyProcess[] = [];

  beforeAll(async () => {
    hyperfleet = await startHyperFleetApiEmulator();
    for (const target of ['adapter', 'reporter'] as const) {
      const port = await freePort();
      processes.push(
        await startFunctionProcess({
          root: ROOT,
          target,
          port,
          logFile: functionsUnderTest[target].log,
          env: {
            PATH: process.env.PATH,
            METADATA_SERVER_DETECTION: 'none',
            HYPERFLEET_API_BASE_URL: hyperfleet.baseUrl,
            HYPERFLEET_API_RETRY_ATTEMPTS: '1',
            PULL_SECRET_JOB: JOB,
            LAUNCH_QUEUE: 'projects/demo-project/locations/us-central1/queues/pullsecret-launches',
            LAUNCHER_SERVICE_ACCOUNT: 'pullsecret-launcher@demo-project.iam.gserviceaccount.com',
            CLOUD_RUN_EMULATOR_HOST: '127.0.0.1:1',
            EVENT_MAX_FAILURES: '3',
            EVENT_MAX_AGE: '30m',
            LOG_FORMAT: 'json',
          },
        }),
      );
      functionsUnderTest[target].url = `http://127.0.0.1:${port}`;
    }
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await hyperfleet.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => hyperfleet.faults.clear());

  /** A push delivery of one Pub/Sub message: the same id on every redelivery. */
  const deliver = async (
    target: 'adapter' | 'reporter',
    message: {
      id: string;
      payload: unknown;
      publishTime: string;
      attributes?: Record<string, string>;
    },
  ) => {
    const topic = target === 'adapter' ? 'hyperfleet-system-clusters' : 'pullsecret-job-results';
    const response = await fetch(
      `${functionsUnderTest[target].url}/projects/demo-project/topics/${topic}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          message: {
            data: Buffer.from(JSON.stringify(message.payload)).toString('base64'),
            attributes: message.attributes ?? {},
            messageId: message.id,
            publishTime: message.publishTime,
          },
          subscription: `projects/demo-project/subscriptions/${target}`,
        }),
      },
    );
    await response.text();
    return response.status;
  };

  /** The ERROR lines with decision retry-bound-exceeded in a function's log (its JSON lines). */
  const boundLines = async (target: 'adapter' | 'reporter', messageId: string) => {
    // The logger writes asynchronously: give the line a moment to land.
    for (let i = 0; i < 50; i++) {
      const lines = fs
        .readFileSync(functionsUnderTest[target].log, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map(
          (line) =>
            JSON.parse(line) as {
              severity?: string;
              message?: string;
              metadata?: Record<string, unknown>;
            },
        )
        .filter(
          (l) =>
            l.metadata?.decision === 'retry-bound-exceeded' && l.metadata.message_id === messageId,
        );
      if (lines.length > 0) return lines;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return [];
  };

  it('adapter: an event failing on a HyperFleet 503 is thrown twice, then acknowledged on the third failure', async () => {
    const { id } = seedReadyCluster(hyperfleet, { name: 'always-503' });
    hyperfleet.faults.add({
      match: `GET /api/hyperfleet/v1/clusters/${id}`,
      count: 100,
      status: 503,
    });
    const message = {
      id: `m-${randomUUID()}`,
      payload: sentinelEvent(id, 1),
      publishTime: new Date().toISOString(),
    };
    expect(await deliver('adapter', message)).toBe(500);
    expect(await deliver('adapter', message)).toBe(500);
    expect(await deliver('adapter', message)).toBe(204);
    const lines = await boundLines('adapter', message.id);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      severity: 'ERROR',
      metadata: {
        decision: 'retry-bound-exceeded',
        reason: 'failures',
        message_id: message.id,
        cluster_id: id,
      },
    });
    expect(lines[0]!.message).toContain('EVENT_MAX_FAILURES');
  });

  it('adapter: an event published hours ago is acknowledged at once, without a call to the API', async () => {
    const { id } = seedReadyCluster(hyperfleet, { name: 'stale-event' });
    const before = hyperfleet.requests.list().length;
    const message = {
      id: `m-${randomUUID()}`,
      payload: sentinelEvent(id, 1),
      publishTime: new Date(Date.now() - 3 * 3600_000).toISOString(),
    };
    expect(await deliver('adapter', message)).toBe(204);
    expect(
      hyperfleet.requests
        .list()
        .slice(before)
        .filter((r) => r.target.includes(id)),
    ).toEqual([]);
    const lines = await boundLines('adapter', message.id);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      severity: 'ERROR',
      metadata: {
        reason: 'age',
        message_id: message.id,
        cluster_id: id,
        publish_time: message.publishTime,
      },
    });
  });

  const jobResult = (clusterId: string) => ({
    outcome: 'failed',
    operation: 'apply',
    dry_run: false,
    cluster_id: clusterId,
    generation: 1,
    execution: 'pullsecret-job-abc12',
    attempt: 1,
    phases: [],
    reason: 'InvalidPullSecret',
    message: 'the pull secret is not a dockerconfigjson',
    failure_kind: 'permanent',
    durations_ms: { total: 10 },
    finished_at: new Date().toISOString(),
  });

  it('reporter: a job result whose status write keeps failing is acknowledged on the third failure', async () => {
    const { id } = seedReadyCluster(hyperfleet, { name: 'report-503' });
    hyperfleet.faults.add({
      match: `PUT /api/hyperfleet/v1/clusters/${id}/statuses`,
      count: 100,
      status: 503,
    });
    const message = {
      id: `m-${randomUUID()}`,
      payload: jobResult(id),
      publishTime: new Date().toISOString(),
      attributes: { type: RESULT_MESSAGE_TYPE },
    };
    expect(await deliver('reporter', message)).toBe(500);
    expect(await deliver('reporter', message)).toBe(500);
    expect(await deliver('reporter', message)).toBe(204);
    const lines = await boundLines('reporter', message.id);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      severity: 'ERROR',
      metadata: { decision: 'retry-bound-exceeded', reason: 'failures', cluster_id: id },
    });
  });

  it('reporter: a result published two hours ago is acknowledged at once (EVENT_MAX_AGE 30m here)', async () => {
    const { id } = seedReadyCluster(hyperfleet, { name: 'report-stale' });
    const message = {
      id: `m-${randomUUID()}`,
      payload: jobResult(id),
      publishTime: new Date(Date.now() - 2 * 3600_000).toISOString(),
      attributes: { type: RESULT_MESSAGE_TYPE },
    };
    expect(await deliver('reporter', message)).toBe(204);
    expect(await boundLines('reporter', message.id)).toEqual([
      expect.objectContaining({
        metadata: expect.objectContaining({ reason: 'age', cluster_id: id }),
      }),
    ]);
  });
});
