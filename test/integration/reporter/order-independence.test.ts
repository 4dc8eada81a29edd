import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import * as functions from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import type { CloudEventV1 } from 'cloudevents';
import { CloudRunExecutionReader } from '../../../shared/executions/cloud-run-execution-reader';
import { createReporterHandler } from '../../../functions/reporter/report/handle-report';
import { startCloudRunEmulator, type CloudRunEmulator } from '../../../emulators/cloud-run/server';
import { executionFinishedEntry } from '../../../emulators/cloud-run/finished-entry';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import { RESULT_MESSAGE_TYPE, type JobResult } from '../../../shared/job-result';
import { cloudRunClients, SCRIPTED_TASK, TEST_JOB } from '../../helpers/cloud-run';
import { pushPubSub } from '../../helpers/events';
import { hyperFleetClient, readySpec } from '../../helpers/hyperfleet';
import { RecordingLogger } from '../../helpers/recording-logger';

describe('reporter through functions-framework: idempotent and order-independent per execution', () => {
  let hyperfleet: HyperFleetApiEmulator;
  let cloudRun: CloudRunEmulator;
  let clients: ReturnType<typeof cloudRunClients>;
  let server: Server;
  let url: string;
  const entries = new Map<string, Record<string, unknown>>();

  beforeAll(async () => {
    hyperfleet = await startHyperFleetApiEmulator();
    cloudRun = await startCloudRunEmulator({
      jobs: [{ name: TEST_JOB, command: [process.execPath, SCRIPTED_TASK], maxRetries: 0 }],
      onExecutionFinished: (entry, execution) => {
        entries.set(execution.name, entry);
      },
    });
    clients = cloudRunClients(cloudRun.endpoint);
    const handler = createReporterHandler({
      hyperfleet: hyperFleetClient(hyperfleet),
      executions: new CloudRunExecutionReader(clients.executions, {
        timeoutMs: 5000,
        retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
      }),
      jobName: TEST_JOB,
      logger: new RecordingLogger(),
    });
    functions.cloudEvent('reporter-under-test', (event: CloudEventV1<unknown>) => handler(event));
    server = getTestServer('reporter-under-test');
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

  /** Runs a real execution for a cluster and returns its name and the job result it would publish. */
  const execute = async (
    clusterId: string,
    behaviour: 'succeed' | 'fail',
  ): Promise<{ name: string; result: JobResult }> => {
    const env = {
      CLUSTER_ID: clusterId,
      GENERATION: '1',
      OPERATION: 'apply',
      GCP_PROJECT_ID: 'demo-project',
      MANAGEMENT_NAMESPACE: `clusters-${clusterId}`,
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
    const name = (operation.metadata as { name: string }).name;
    const execution = await cloudRun.waitForExecution(name);
    const started = execution.startTime!.getTime();
    const finished = new Date(started + 5).toISOString();
    const result: JobResult =
      behaviour === 'succeed'
        ? {
            outcome: 'succeeded',
            operation: 'apply',
            dry_run: false,
            cluster_id: clusterId,
            generation: 1,
            execution: execution.shortName,
            attempt: 1,
            phases: ['secret-manager', 'kubernetes'],
            reason: 'PullSecretProvisioned',
            message: 'Pull secret stored',
            pull_secret_sha256_prefix: 'abcdefabcdef',
            secret_manager: {
              secret_path: `projects/demo-project/secrets/hyperfleet-${clusterId}-pull-secret`,
              secret: 'created',
              version: 'added',
              version_name: `projects/demo-project/secrets/hyperfleet-${clusterId}-pull-secret/versions/7`,
              verified: true,
              destroyed_versions: [],
            },
            kubernetes: {
              namespace: `clusters-${clusterId}`,
              name: `${clusterId}-pull-secret`,
              outcome: 'created',
              resource_version: '3',
            },
            durations_ms: { total: 5 },
            started_at: new Date(started).toISOString(),
            finished_at: finished,
          }
        : {
            outcome: 'failed',
            operation: 'apply',
            dry_run: false,
            cluster_id: clusterId,
            generation: 1,
            execution: execution.shortName,
            attempt: 1,
            phases: [],
            reason: 'InvalidPullSecret',
            message: 'The pull secret is invalid: "auths" must not be empty.',
            failure_kind: 'permanent',
            durations_ms: { total: 5 },
            started_at: new Date(started).toISOString(),
            finished_at: finished,
          };
    return { name, result };
  };
  const sendResult = (result: JobResult) =>
    pushPubSub(url, result, {
      topic: 'pullsecret-job-results',
      attributes: { type: RESULT_MESSAGE_TYPE },
    });
  const sendFinished = (name: string) =>
    pushPubSub(url, entries.get(name) ?? executionFinishedEntry(cloudRun.executions.get(name)!), {
      topic: 'pullsecret-execution-finished',
    });
  const finalStatus = async (id: string) => {
    const status = (await hyperFleetClient(hyperfleet).listStatuses(id)).find(
      (s) => s.adapter === 'pullsecret',
    );
    return {
      conditions: status?.conditions.map((c) => `${c.type}=${c.status}/${c.reason ?? ''}`).sort(),
      data: status?.data,
    };
  };
  const cluster = (name: string) =>
    (
      hyperfleet.store.createCluster({ kind: 'Cluster', name, spec: readySpec() }, 't') as {
        id: string;
      }
    ).id;

  it.each(['succeed', 'fail'] as const)(
    'gives the same final status in both orders when the job %ss',
    async (behaviour) => {
      const a = cluster(`order-a-${behaviour}`);
      const b = cluster(`order-b-${behaviour}`);
      const runA = await execute(a, behaviour);
      const runB = await execute(b, behaviour);
      expect(await sendResult(runA.result)).toBe(204);
      expect(await sendFinished(runA.name)).toBe(204);
      expect(await sendFinished(runB.name)).toBe(204);
      expect(await sendResult(runB.result)).toBe(204);
      const statusA = await finalStatus(a);
      const statusB = await finalStatus(b);
      const normalise = (s: typeof statusA, id: string) =>
        JSON.parse(
          JSON.stringify(s)
            .split(id)
            .join('ID')
            .replace(/pullsecret-job-[a-z0-9]{5}/g, 'EXEC'),
        ) as unknown;
      expect(normalise(statusA, a)).toEqual(normalise(statusB, b));
      if (behaviour === 'succeed') {
        expect(statusA.conditions).toEqual([
          'Applied=True/JobSucceeded',
          'Available=True/PullSecretProvisioned',
          'Health=True/NoErrors',
        ]);
        expect(statusA.data).toMatchObject({
          secret_version: '7',
          pull_secret_name: `${a}-pull-secret`,
        });
      } else {
        expect(statusA.conditions).toEqual([
          'Applied=True/JobExecuted',
          'Available=False/InvalidPullSecret',
          'Health=False/InvalidPullSecret',
        ]);
      }
    },
  );

  it('reports a failed execution with no job result with the execution reason', async () => {
    const id = cluster('finished-only');
    const run = await execute(id, 'fail');
    expect(await sendFinished(run.name)).toBe(204);
    const status = await finalStatus(id);
    expect(status.conditions).toEqual([
      'Applied=True/JobExecuted',
      'Available=False/JobFailed',
      'Health=False/JobFailed',
    ]);
    expect(status.data).toMatchObject({
      execution_reason: 'NonZeroExit',
      failure_kind: 'transient',
      execution: run.name,
    });
  });

  it('is idempotent: the same messages again change nothing', async () => {
    const id = cluster('idempotent');
    const run = await execute(id, 'succeed');
    await sendResult(run.result);
    const once = await finalStatus(id);
    await sendResult(run.result);
    await sendFinished(run.name);
    await sendResult(run.result);
    expect(await finalStatus(id)).toEqual(once);
  });

  it('acknowledges garbage and executions of other jobs without reporting', async () => {
    hyperfleet.requests.clear();
    expect(await pushPubSub(url, { something: 'else' }, { topic: 'pullsecret-job-results' })).toBe(
      204,
    );
    const foreign = {
      ...executionFinishedEntry(cloudRun.executions.values().next().value!),
      resource: {
        type: 'cloud_run_job',
        labels: { job_name: 'other-job', location: 'us-central1', project_id: 'demo-project' },
      },
    };
    expect(await pushPubSub(url, foreign, { topic: 'pullsecret-execution-finished' })).toBe(204);
    expect(hyperfleet.requests.list()).toEqual([]);
  });
});
