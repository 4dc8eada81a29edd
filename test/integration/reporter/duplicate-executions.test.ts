import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import * as functions from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import type { CloudEventV1 } from 'cloudevents';
import { CloudRunExecutionReader } from '../../../shared/executions/cloud-run-execution-reader';
import { createReporterHandler } from '../../../functions/reporter/report/handle-report';
import { SecretManagerClaimReader } from '../../../functions/reporter/claim/secret-manager-claim-reader';
import { startCloudRunEmulator, type CloudRunEmulator } from '../../../emulators/cloud-run/server';
import { executionFinishedEntry } from '../../../emulators/cloud-run/finished-entry';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { RESULT_MESSAGE_TYPE, type JobResult } from '../../../shared/job-result';
import { annotationsWithClaim } from '../../../shared/pull-secret/claim';
import { cloudRunClients, SCRIPTED_TASK, TEST_JOB } from '../../helpers/cloud-run';
import { pushPubSub } from '../../helpers/events';
import { hyperFleetClient, readySpec } from '../../helpers/hyperfleet';
import { RecordingLogger } from '../../helpers/recording-logger';
import { secretManagerClient } from '../../helpers/secret-manager';

/**
 * A duplicate execution exits 0 like the claim holder. Its result and its execution-finished event
 * must not produce a status: arriving first, it would claim success before the holder finished;
 * arriving last, it would overwrite the holder's report.
 */
describe('reporter: duplicate executions are never reported', () => {
  let hyperfleet: HyperFleetApiEmulator;
  let cloudRun: CloudRunEmulator;
  let sm: SecretManagerEmulator;
  let smClient: SecretManagerServiceClient;
  let clients: ReturnType<typeof cloudRunClients>;
  let server: Server;
  let url: string;
  const logger = new RecordingLogger();

  beforeAll(async () => {
    hyperfleet = await startHyperFleetApiEmulator();
    sm = await startSecretManagerEmulator();
    smClient = secretManagerClient(sm.endpoint);
    cloudRun = await startCloudRunEmulator({
      jobs: [{ name: TEST_JOB, command: [process.execPath, SCRIPTED_TASK], maxRetries: 0 }],
    });
    clients = cloudRunClients(cloudRun.endpoint);
    const handler = createReporterHandler({
      hyperfleet: hyperFleetClient(hyperfleet),
      executions: new CloudRunExecutionReader(clients.executions, {
        timeoutMs: 5000,
        retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
      }),
      claims: new SecretManagerClaimReader(smClient, {
        timeoutMs: 5000,
        retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
      }),
      jobName: TEST_JOB,
      logger,
    });
    functions.cloudEvent('reporter-duplicates', (event: CloudEventV1<unknown>) => handler(event));
    server = getTestServer('reporter-duplicates');
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.close();
    await clients.jobs.close();
    await clients.executions.close();
    await smClient.close();
    await cloudRun.stop();
    await sm.stop();
    await hyperfleet.stop();
  });

  const execute = async (clusterId: string, operation: 'apply' | 'delete') => {
    const env = {
      CLUSTER_ID: clusterId,
      GENERATION: '1',
      OPERATION: operation,
      GCP_PROJECT_ID: 'demo-project',
      LAUNCH_ATTEMPT: '1',
      TASK_BEHAVIOUR: 'succeed',
    };
    const [launched] = await clients.jobs.runJob({
      name: TEST_JOB,
      overrides: {
        containerOverrides: [
          { env: Object.entries(env).map(([name, value]) => ({ name, value })) },
        ],
      },
    });
    return cloudRun.waitForExecution((launched.metadata as { name: string }).name);
  };
  const claimFor = async (clusterId: string, execution: string, operation: 'apply' | 'delete') => {
    await smClient.createSecret({
      parent: 'projects/demo-project',
      secretId: `hyperfleet-${clusterId}-pull-secret`,
      secret: {
        replication: { automatic: {} },
        labels: { 'managed-by': 'hyperfleet' },
        annotations: annotationsWithClaim(undefined, {
          generation: 1,
          operation,
          attempt: 1,
          execution,
        }),
      },
    });
  };
  const sendFinished = (name: string) =>
    pushPubSub(url, executionFinishedEntry(cloudRun.executions.get(name)!), {
      topic: 'pullsecret-execution-finished',
    });
  const sendResult = (result: JobResult) =>
    pushPubSub(url, result, {
      topic: 'pullsecret-job-results',
      attributes: { type: RESULT_MESSAGE_TYPE },
    });
  const ownStatus = async (id: string) =>
    (await hyperFleetClient(hyperfleet).listStatuses(id)).find((s) => s.adapter === 'pullsecret');
  const duplicateResult = (
    clusterId: string,
    execution: string,
    holder: string,
    operation: 'apply' | 'delete',
  ): JobResult => ({
    outcome: 'stood-aside',
    operation,
    dry_run: false,
    cluster_id: clusterId,
    generation: 1,
    execution,
    attempt: 1,
    phases: [],
    reason: 'DuplicateExecution',
    message: 'Duplicate execution: another execution holds the claim, so this one wrote nothing.',
    claim_holder: { execution: holder, generation: 1, operation, attempt: 1 },
    durations_ms: { total: 3 },
    finished_at: new Date().toISOString(),
  });

  it.each(['apply', 'delete'] as const)(
    '%s: the duplicate finishing first writes no status; the holder is reported',
    async (operation) => {
      const id = (
        hyperfleet.store.createCluster(
          { kind: 'Cluster', name: `dup-${operation}`, spec: readySpec() },
          't',
        ) as { id: string }
      ).id;
      const holder = await execute(id, operation);
      const duplicate = await execute(id, operation);
      await claimFor(id, holder.shortName, operation);

      expect(await sendFinished(duplicate.name)).toBe(204);
      expect(
        await sendResult(duplicateResult(id, duplicate.shortName, holder.shortName, operation)),
      ).toBe(204);
      expect(await ownStatus(id)).toBeUndefined();
      const decisions = logger.lines
        .filter((line) => line.fields.decision === 'stood-aside')
        .map((line) => line.fields.source);
      expect(decisions.slice(-2)).toEqual(['execution-finished', 'job-result']);

      expect(await sendFinished(holder.name)).toBe(204);
      const reported = await ownStatus(id);
      expect(JSON.stringify(reported?.data)).toContain(holder.shortName);
      // A redelivered duplicate event still changes nothing.
      expect(await sendFinished(duplicate.name)).toBe(204);
      expect(await ownStatus(id)).toEqual(reported);
    },
  );
});
