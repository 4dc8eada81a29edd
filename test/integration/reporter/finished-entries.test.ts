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
import { cloudRunClients, hangingTestJob, TEST_JOB } from '../../helpers/cloud-run';
import { pushPubSub } from '../../helpers/events';
import { hyperFleetClient } from '../../helpers/hyperfleet';
import { RecordingLogger } from '../../helpers/recording-logger';

/**
 * Issue 29 §4: the execution-finished path degrades loudly. Cloud Run documents no schema for the
 * entry, so one this reporter cannot read is an ERROR with its own decision (a log-based metric
 * alerts on it), and an entry that arrives before Cloud Run's API shows the execution completed is
 * retried (5xx, redelivered within the code's bound), never acknowledged with nothing reported.
 */
describe('reporter: execution-finished entries it cannot use yet or at all', () => {
  let hyperfleet: HyperFleetApiEmulator;
  let cloudRun: CloudRunEmulator;
  let clients: ReturnType<typeof cloudRunClients>;
  let server: Server;
  let url: string;
  const logger = new RecordingLogger();

  beforeAll(async () => {
    hyperfleet = await startHyperFleetApiEmulator();
    cloudRun = await startCloudRunEmulator({ jobs: [hangingTestJob()] });
    clients = cloudRunClients(cloudRun.endpoint);
    const handler = createReporterHandler({
      hyperfleet: hyperFleetClient(hyperfleet),
      executions: new CloudRunExecutionReader(clients.executions, {
        timeoutMs: 5000,
        retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
      }),
      jobName: TEST_JOB,
      logger,
    });
    functions.cloudEvent('finished-entries-under-test', (event: CloudEventV1<unknown>) =>
      handler(event),
    );
    server = getTestServer('finished-entries-under-test');
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
  const push = (entry: unknown) =>
    pushPubSub(url, entry, { topic: 'pullsecret-execution-finished' });

  it('logs an entry it cannot read at ERROR with decision finished-entry-unreadable, and acknowledges it', async () => {
    const reshaped = {
      logName: 'projects/demo-project/logs/cloudaudit.googleapis.com%2Fsystem_event',
      protoPayload: { method: '/Jobs.RunJob', resource: 'executions/x' },
    };
    expect(await push(reshaped)).toBeLessThan(300);
    const errors = logger.lines.filter(
      (l) => l.level === 'error' && l.fields.decision === 'finished-entry-unreadable',
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain('Could not read an execution-finished entry');
  });

  it('retries an entry whose execution Cloud Run does not yet show completed (5xx), reporting nothing', async () => {
    const [operation] = await clients.jobs.runJob({
      name: TEST_JOB,
      overrides: {
        containerOverrides: [
          {
            env: [
              { name: 'CLUSTER_ID', value: 'cls-not-done' },
              { name: 'GENERATION', value: '1' },
            ],
          },
        ],
      },
    });
    const name = String((operation.metadata as { name?: string } | undefined)?.name ?? '');
    const execution = [...cloudRun.executions.values()].find(
      (e) => e.env.CLUSTER_ID === 'cls-not-done',
    )!;
    expect(name === '' || name === execution.name).toBe(true);
    // The entry as the sink would route it, arriving while the API still shows the execution running.
    const early = executionFinishedEntry(execution);
    const before = hyperfleet.requests.list().length;
    expect(await push(early)).toBeGreaterThanOrEqual(500);
    expect(
      hyperfleet.requests
        .list()
        .slice(before)
        .filter((r) => r.method === 'PUT'),
    ).toEqual([]);
    await clients.executions.cancelExecution({ name: execution.name });
  });
});
