import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import * as functions from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import type { CloudEventV1 } from 'cloudevents';
import { CloudRunExecutionReader } from '../../../shared/executions/cloud-run-execution-reader';
import type {
  ExecutionReader,
  ExecutionSummary,
} from '../../../shared/executions/execution-reader';
import { createReporterHandler } from '../../../functions/reporter/report/handle-report';
import { startCloudRunEmulator, type CloudRunEmulator } from '../../../emulators/cloud-run/server';
import { routedBySink } from '../../../emulators/cloud-run/audit-entries';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import { RESULT_MESSAGE_TYPE, type JobResult } from '../../../shared/job-result';
import { cloudRunClients, SCRIPTED_TASK, TEST_JOB } from '../../helpers/cloud-run';
import { pushPubSub } from '../../helpers/events';
import { hyperFleetClient, readySpec } from '../../helpers/hyperfleet';
import { RecordingLogger } from '../../helpers/recording-logger';

/** The real reader with what Cloud Run does not document: override env echoed in the template. */
class ReaderWithoutEcho implements ExecutionReader {
  constructor(private readonly inner: ExecutionReader) {}
  async read(name: string): Promise<ExecutionSummary | undefined> {
    const summary = await this.inner.read(name);
    return summary && { ...summary, env: {} };
  }
}

/**
 * Issue 37: what Cloud Run writes for one RunJob, and what the reporter does with each entry.
 * Three audit entries a RunJob (emulators/cloud-run/audit-entries.ts, citing
 * https://cloud.google.com/run/docs/audit-logging): the LRO's request entry (`operation.first`),
 * its completion entry (`operation.last`, the Execution in `protoPayload.response`), and the
 * system_event `/Jobs.RunJob` entry. The sink (logging.tf) routes one; the reporter ignores the
 * request entry and reports either completion entry; a cancelled execution is reported Cancelled;
 * an execution whose template shows no override env is not attributed, and the job's result reports.
 */
describe('reporter: the audit entries of a RunJob, each handled', () => {
  let hyperfleet: HyperFleetApiEmulator;
  let cloudRun: CloudRunEmulator;
  let clients: ReturnType<typeof cloudRunClients>;
  const servers: Server[] = [];
  const entries: Record<string, unknown>[] = [];
  const logger = new RecordingLogger();
  let withEcho: string;
  let withoutEcho: string;

  const serve = async (name: string, executions: ExecutionReader): Promise<string> => {
    const handler = createReporterHandler({
      hyperfleet: hyperFleetClient(hyperfleet),
      executions,
      jobName: TEST_JOB,
      logger,
    });
    functions.cloudEvent(name, (event: CloudEventV1<unknown>) => handler(event));
    const server = getTestServer(name);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  beforeAll(async () => {
    hyperfleet = await startHyperFleetApiEmulator();
    cloudRun = await startCloudRunEmulator({
      jobs: [{ name: TEST_JOB, command: [process.execPath, SCRIPTED_TASK], maxRetries: 0 }],
      onAuditEntry: (entry) => void entries.push(entry),
    });
    clients = cloudRunClients(cloudRun.endpoint);
    const reader = new CloudRunExecutionReader(clients.executions, {
      timeoutMs: 5000,
      retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
    });
    withEcho = await serve('audit-entries-under-test', reader);
    withoutEcho = await serve('audit-entries-without-echo', new ReaderWithoutEcho(reader));
  });
  afterAll(async () => {
    for (const server of servers) server.close();
    await clients.jobs.close();
    await clients.executions.close();
    await cloudRun.stop();
    await hyperfleet.stop();
  });

  const cluster = (name: string) =>
    (
      hyperfleet.store.createCluster({ kind: 'Cluster', name, spec: readySpec() }, 't') as {
        id: string;
      }
    ).id;
  const run = async (clusterId: string, behaviour: 'succeed' | 'hang') => {
    const env = {
      CLUSTER_ID: clusterId,
      GENERATION: '1',
      OPERATION: 'apply',
      GCP_PROJECT_ID: 'demo-project',
      LAUNCH_ATTEMPT: '1',
      TASK_BEHAVIOUR: behaviour,
    };
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
  type Entry = Record<string, unknown> & {
    operation?: { id?: string; first?: boolean; last?: boolean };
    protoPayload?: { response?: { name?: string } };
    labels?: Record<string, string>;
  };
  /** The entries of one execution, once all three are written: request, completion, system_event. */
  const entriesOf = async (name: string) => {
    await cloudRun.waitForExecution(name);
    const short = name.split('/').pop()!;
    const all = entries as Entry[];
    const completionOf = () =>
      all.find((e) => e.operation?.last && e.protoPayload?.response?.name === name);
    const systemEventOf = () =>
      all.find((e) => e.labels?.['run.googleapis.com/execution_name'] === short);
    for (let i = 0; i < 100 && !(completionOf() && systemEventOf()); i++)
      await new Promise((r) => setTimeout(r, 20));
    const completion = completionOf()!;
    const request = all.find(
      (e) => e.operation?.first && e.operation.id === completion.operation!.id,
    )!;
    return { request, finished: [completion, systemEventOf()!] };
  };
  const puts = () => hyperfleet.requests.list().filter((r) => r.method === 'PUT');
  const push = (base: string, entry: unknown) =>
    pushPubSub(base, entry, { topic: 'pullsecret-execution-finished' });
  const status = async (id: string) =>
    (await hyperFleetClient(hyperfleet).listStatuses(id)).find((s) => s.adapter === 'pullsecret');

  it('writes three entries a RunJob, of which the sink routes only the system_event one', async () => {
    const id = cluster('audit-three');
    const name = await run(id, 'succeed');
    const { request, finished } = await entriesOf(name);
    expect(request).toMatchObject({
      logName: 'projects/demo-project/logs/cloudaudit.googleapis.com%2Fdata_access',
      operation: { first: true, producer: 'run.googleapis.com' },
      protoPayload: { methodName: 'google.cloud.run.v2.Jobs.RunJob', resourceName: TEST_JOB },
    });
    const [completion, systemEvent] = finished;
    expect(completion).toMatchObject({
      operation: { last: true, id: (request.operation as { id: string }).id },
      protoPayload: {
        methodName: 'google.cloud.run.v2.Jobs.RunJob',
        response: { '@type': 'type.googleapis.com/google.cloud.run.v2.Execution', name },
      },
    });
    expect(systemEvent).toMatchObject({ protoPayload: { methodName: '/Jobs.RunJob' } });
    expect(
      [request, completion, systemEvent].map((e) => routedBySink(e!, 'pullsecret-job')),
    ).toEqual([false, false, true]);
  });

  it('ignores the request entry and reports the completion once, from either completion entry', async () => {
    const id = cluster('audit-once');
    const name = await run(id, 'succeed');
    const { request, finished } = await entriesOf(name);
    const before = puts().length;
    expect(await push(withEcho, request)).toBeLessThan(300);
    expect(puts().length).toBe(before);
    // What the sink routes: one entry, one report.
    expect(
      await push(
        withEcho,
        finished.find((e) => routedBySink(e))!,
      ),
    ).toBeLessThan(300);
    expect(puts().length).toBe(before + 1);
    expect((await status(id))?.conditions.find((c) => c.type === 'Available')?.status).toBe('True');
    // Were the sink widened to the operation's completion entry, it names the same execution.
    expect(await push(withEcho, finished[0])).toBeLessThan(300);
    expect((await status(id))?.conditions.find((c) => c.type === 'Available')?.status).toBe('True');
  });

  it('reports a cancelled execution as Cancelled (Completed: CONDITION_FAILED, execution_reason CANCELLED)', async () => {
    const id = cluster('audit-cancelled');
    const name = await run(id, 'hang');
    await new Promise((r) => setTimeout(r, 200));
    await clients.executions.cancelExecution({ name });
    const { finished } = await entriesOf(name);
    const [execution] = await clients.executions.getExecution({ name });
    const completed = execution.conditions?.find((c) => c.type === 'Completed');
    expect(String(completed?.state)).toBe('CONDITION_FAILED');
    expect(String(completed?.executionReason)).toBe('CANCELLED');
    expect(Number(execution.cancelledCount)).toBeGreaterThanOrEqual(1);
    const routed = finished.find((e) => routedBySink(e))!;
    expect(routed).toMatchObject({ protoPayload: { status: { code: 1 } } });
    expect(await push(withEcho, routed)).toBeLessThan(300);
    const available = (await status(id))?.conditions.find((c) => c.type === 'Available');
    expect(available?.status).toBe('False');
    expect(available?.message).toContain('(Cancelled)');
  });

  it('without override env in the template: attributes nothing, warns, and the job result reports', async () => {
    const id = cluster('audit-no-echo');
    const name = await run(id, 'succeed');
    const { finished } = await entriesOf(name);
    const before = puts().length;
    expect(
      await push(
        withoutEcho,
        finished.find((e) => routedBySink(e))!,
      ),
    ).toBeLessThan(300);
    expect(puts().length).toBe(before);
    expect(
      logger.lines.some(
        (l) => l.level === 'warn' && l.fields.decision === 'execution-unattributed',
      ),
    ).toBe(true);
    const execution = cloudRun.executions.get(name)!;
    const started = execution.startTime!.getTime();
    const result: JobResult = {
      outcome: 'succeeded',
      operation: 'apply',
      dry_run: false,
      cluster_id: id,
      generation: 1,
      execution: execution.shortName,
      attempt: 1,
      phases: ['secret-manager'],
      reason: 'PullSecretProvisioned',
      message: 'Pull secret stored',
      pull_secret_sha256_prefix: 'abcdefabcdef',
      secret_manager: {
        secret_path: `projects/demo-project/secrets/hyperfleet-${id}-pull-secret`,
        secret: 'created',
        version: 'added',
        version_name: `projects/demo-project/secrets/hyperfleet-${id}-pull-secret/versions/3`,
        verified: true,
        destroyed_versions: [],
      },
      durations_ms: { total: 5 },
      started_at: new Date(started).toISOString(),
      finished_at: new Date(started + 5).toISOString(),
    };
    expect(
      await pushPubSub(withoutEcho, result, {
        topic: 'pullsecret-job-results',
        attributes: { type: RESULT_MESSAGE_TYPE },
      }),
    ).toBeLessThan(300);
    const available = (await status(id))?.conditions.find((c) => c.type === 'Available');
    expect(available).toMatchObject({ status: 'True', reason: 'PullSecretProvisioned' });
  });
});
