// A late result (its observed_time outside the API's 30 min window) is never squeezed into the
// window: it is re-derived from the current status (sent as observed now) when nothing newer was
// reported since its execution began, and dropped with the reason otherwise.
import type { ExecutionReader } from '../../../shared/executions/execution-reader';
import { createReporterHandler } from '../../../functions/reporter/report/handle-report';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import { PUBSUB_MESSAGE_PUBLISHED } from '../../../shared/events/decode';
import { readOwnStatus } from '../../../shared/status/own-status';
import { buildStatus } from '../../../shared/status/status-builder';
import { RESULT_MESSAGE_TYPE, type JobResult } from '../../../shared/job-result';
import { TEST_JOB } from '../../helpers/cloud-run';
import { hyperFleetClient, readySpec } from '../../helpers/hyperfleet';
import { RecordingLogger } from '../../helpers/recording-logger';

/** The job results never need Cloud Run here; an execution-finished event would. */
class NoExecutions implements ExecutionReader {
  async read(): Promise<undefined> {
    return undefined;
  }
}

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-23T10:00:00.000Z');

describe('reporter: late results are re-derived or dropped, never rewritten into the window', () => {
  let clock = T0;
  let hyperfleet: HyperFleetApiEmulator;
  const logger = new RecordingLogger();
  const now = () => new Date(clock);

  beforeAll(async () => {
    hyperfleet = await startHyperFleetApiEmulator({ now });
  });
  afterAll(() => hyperfleet.stop());

  const api = () => hyperFleetClient(hyperfleet);
  const handler = () =>
    createReporterHandler({
      hyperfleet: api(),
      executions: new NoExecutions(),
      jobName: TEST_JOB,
      logger,
      now,
    });

  const result = (clusterId: string, execution: string, finishedAt: number): JobResult => ({
    outcome: 'succeeded',
    operation: 'apply',
    dry_run: false,
    cluster_id: clusterId,
    generation: 1,
    execution,
    attempt: 1,
    phases: ['secret-manager'],
    reason: 'PullSecretProvisioned',
    message: 'Pull secret stored',
    secret_manager: {
      secret_path: `projects/demo-project/secrets/hyperfleet-${clusterId}-pull-secret`,
      secret: 'created',
      version: 'added',
      version_name: `projects/demo-project/secrets/hyperfleet-${clusterId}-pull-secret/versions/1`,
      verified: true,
      destroyed_versions: [],
    },
    durations_ms: { total: 1000 },
    started_at: new Date(finishedAt - 1000).toISOString(),
    finished_at: new Date(finishedAt).toISOString(),
  });
  const deliver = (value: JobResult) =>
    handler()({
      id: 'm1',
      type: PUBSUB_MESSAGE_PUBLISHED,
      source: '//pubsub.googleapis.com/projects/p/topics/pullsecret-job-results',
      specversion: '1.0',
      data: {
        message: {
          data: Buffer.from(JSON.stringify(value)).toString('base64'),
          attributes: { type: RESULT_MESSAGE_TYPE },
        },
      },
    });
  /** A cluster whose pullsecret status says `execution` was launched at `at`. */
  const launched = async (name: string, execution: string, at: number) => {
    clock = at;
    const cluster = await api().createCluster({ name, spec: readySpec() });
    await api().putStatus(
      cluster.id,
      buildStatus(
        {
          kind: 'launched',
          operation: 'apply',
          execution: `${TEST_JOB}/executions/${execution}`,
          launchedAt: new Date(at).toISOString(),
          attempt: 1,
        },
        1,
        new Date(at),
      ),
    );
    return cluster.id;
  };
  const own = async (id: string) => {
    const statuses = await api().listStatuses(id);
    return {
      own: readOwnStatus(statuses),
      reportedAt: statuses.find((s) => s.adapter === 'pullsecret')?.last_report_time,
    };
  };

  it('in the window: sent with its own observed_time, without reading the current status', async () => {
    const id = await launched('in-window', 'exec-w', T0);
    clock = T0 + 10 * MINUTE;
    hyperfleet.requests.clear();
    await deliver(result(id, 'exec-w', T0 + MINUTE));
    expect(await own(id)).toMatchObject({
      own: { available: 'True' },
      reportedAt: new Date(T0 + MINUTE).toISOString(),
    });
    expect(
      hyperfleet.requests
        .list()
        .filter((r) => r.method === 'GET' && r.target.endsWith('/statuses')),
    ).toHaveLength(1); // only the assertion's own read above
  });

  it('35 min late, the status still shows that execution running: re-derived, observed now', async () => {
    const id = await launched('late-running', 'exec-a', T0);
    clock = T0 + 35 * MINUTE;
    await deliver(result(id, 'exec-a', T0 + MINUTE));
    expect(await own(id)).toMatchObject({
      own: { available: 'True', data: { execution: `${TEST_JOB}/executions/exec-a` } },
      reportedAt: new Date(clock).toISOString(),
    });
    expect(logger.lines.map((l) => l.fields.decision)).toContain('late-report-re-derived');
  });

  it('35 min late, a relaunch reported since: dropped with the reason, the newer status stays', async () => {
    const id = await launched('late-relaunched', 'exec-old', T0);
    clock = T0 + 20 * MINUTE;
    await api().putStatus(
      id,
      buildStatus(
        {
          kind: 'launched',
          operation: 'apply',
          execution: `${TEST_JOB}/executions/exec-new`,
          launchedAt: new Date(clock).toISOString(),
          attempt: 2,
        },
        1,
        new Date(clock),
      ),
    );
    clock = T0 + 35 * MINUTE;
    const lines = logger.lines.length;
    await deliver(result(id, 'exec-old', T0 + MINUTE));
    expect(await own(id)).toMatchObject({
      own: {
        availableReason: 'JobRunning',
        data: { execution: `${TEST_JOB}/executions/exec-new` },
      },
      reportedAt: new Date(T0 + 20 * MINUTE).toISOString(),
    });
    const dropped = logger.lines
      .slice(lines)
      .find((l) => l.fields.decision === 'late-report-dropped');
    expect(dropped?.level).toBe('warn');
    expect(dropped?.message).toMatch(/execution exec-new .*newer than execution exec-old/);
  });
});
