import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import path from 'node:path';
import * as functions from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import type { CloudEventV1 } from 'cloudevents';
import * as z from 'zod';
import { createAdapterHandler } from '../../functions/adapter/flows/handle-event';
import {
  compilePreconditions,
  DEFAULT_PRECONDITIONS,
} from '../../functions/adapter/decision/preconditions';
import { CloudRunExecutionReader } from '../../shared/executions/cloud-run-execution-reader';
import {
  startCloudTasksEmulator,
  type CloudTasksEmulator,
} from '../../emulators/cloud-tasks/server';
import { createReporterHandler } from '../../functions/reporter/report/handle-report';
import { startCloudRunEmulator, type CloudRunEmulator } from '../../emulators/cloud-run/server';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../emulators/hyperfleet-api/server';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../emulators/secret-manager/server';
import { reconcileEvent } from '../../emulators/pullsecret/sentinel/sentinel';
import { readOwnStatus } from '../../shared/status/own-status';
import { EXIT_CODES, RESULT_MESSAGE_TYPE } from '../../shared/job-result';
import { cloudRunClients, SCRIPTED_TASK, TEST_JOB } from '../helpers/cloud-run';
import { pushPubSub } from '../helpers/events';
import { hyperFleetClient } from '../helpers/hyperfleet';
import { runJob } from '../helpers/job';
import { RecordingLogger } from '../helpers/recording-logger';
import { ROOT } from '../helpers/run-process';
import {
  TEST_DECISION_SETTINGS,
  TEST_PULL_SECRET_PATHS,
  adapterCloudPorts,
  TEST_LAUNCH_QUEUE,
} from '../helpers/adapter';

const DIR = path.join(ROOT, 'test/fixtures/bad-inputs');
const caseSchema = z.object({
  kind: z.enum(['pubsub-envelope', 'cloudevent', 'cluster', 'pull-secret']),
  description: z.string().min(5),
  input: z.unknown(),
  expect: z.object({
    log: z.string().optional(),
    status_reason: z.string().optional(),
    status_message: z.string().optional(),
  }),
});
const cases = fs
  .readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((file) => ({
    file,
    ...caseSchema.parse(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8'))),
  }));

describe('bad input corpus (test/fixtures/bad-inputs): a specific reason, no crash, no loop', () => {
  let hyperfleet: HyperFleetApiEmulator;
  let cloudRun: CloudRunEmulator;
  // Manual dispatch: a bad input must not even queue a launch (no CreateTask).
  let tasks: CloudTasksEmulator;
  let sm: SecretManagerEmulator;
  let clients: ReturnType<typeof cloudRunClients>;
  const servers: Server[] = [];
  const logger = new RecordingLogger();
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
    hyperfleet = await startHyperFleetApiEmulator();
    sm = await startSecretManagerEmulator();
    cloudRun = await startCloudRunEmulator({
      jobs: [{ name: TEST_JOB, command: [process.execPath, SCRIPTED_TASK], maxRetries: 0 }],
    });
    tasks = await startCloudTasksEmulator({
      dispatch: 'manual',
      queues: [{ name: TEST_LAUNCH_QUEUE }],
    });
    clients = cloudRunClients(cloudRun.endpoint);
    const api = hyperFleetClient(hyperfleet, { logger });
    const { lookup, ...launchQueue } = adapterCloudPorts(
      {
        tasksHost: tasks.endpoint,
        cloudRunEndpoint: cloudRun.apiUrl,
        executions: clients.executions,
      },
      logger,
    );
    adapterUrl = await serve(
      'bad-inputs-adapter',
      createAdapterHandler({
        hyperfleet: api,
        launchQueue,
        lookup,
        preconditions: compilePreconditions(DEFAULT_PRECONDITIONS),
        settings: TEST_DECISION_SETTINGS,
        pullSecret: TEST_PULL_SECRET_PATHS,
        logger,
      }),
    );
    reporterUrl = await serve(
      'bad-inputs-reporter',
      createReporterHandler({
        hyperfleet: api,
        executions: new CloudRunExecutionReader(clients.executions, {
          timeoutMs: 5000,
          retry: { attempts: 1, baseDelayMs: 10, maxDelayMs: 10 },
        }),
        jobName: TEST_JOB,
        logger,
      }),
    );
  });
  afterAll(async () => {
    servers.forEach((s) => s.close());
    await clients.jobs.close();
    await clients.executions.close();
    await cloudRun.stop();
    await tasks.stop();
    await sm.stop();
    await hyperfleet.stop();
  });

  it('holds at least 40 cases across envelopes, CloudEvents, cluster documents and pull secrets', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    expect(new Set(cases.map((c) => c.kind))).toEqual(
      new Set(['pubsub-envelope', 'cloudevent', 'cluster', 'pull-secret']),
    );
  });

  let counter = 0;
  /** Creates the cluster a case describes, with validation, dns and placement Available. */
  const seed = (input: {
    id?: string;
    spec: Record<string, unknown>;
    placement_namespace?: string;
  }) => {
    counter++;
    const created = hyperfleet.store.createCluster(
      {
        kind: 'Cluster',
        name: `bad-input-${counter}`,
        spec: input.spec,
        ...(input.id ? { id: input.id } : {}),
      },
      'test',
    ) as { id: string };
    hyperfleet.store.reportAdapter(created.id, 'validation', { available: 'True' });
    hyperfleet.store.reportAdapter(created.id, 'dns', { available: 'True' });
    hyperfleet.store.reportAdapter(created.id, 'placement', {
      available: 'True',
      data: { namespace: input.placement_namespace ?? `clusters-${created.id}` },
    });
    return created.id;
  };
  const statusOf = async (id: string) =>
    (await hyperFleetClient(hyperfleet).listStatuses(id)).find((s) => s.adapter === 'pullsecret');

  it.each(
    cases
      .filter((c) => c.kind === 'pubsub-envelope' || c.kind === 'cloudevent')
      .map((c) => [c.file, c] as const),
  )('%s: acknowledged with one warning that says what was wrong', async (_file, c) => {
    const lines = logger.lines.length;
    const executions = cloudRun.executions.size;
    hyperfleet.requests.clear();
    const url = `${adapterUrl}/projects/demo-project/topics/hyperfleet-system-clusters`;
    const status =
      c.kind === 'cloudevent'
        ? await pushPubSub(adapterUrl, c.input)
        : (
            await fetch(url, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(c.input),
            })
          ).status;
    expect(status).toBe(204);
    const warnings = logger.lines.slice(lines).filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(new RegExp(c.expect.log!));
    expect(hyperfleet.requests.list()).toEqual([]);
    expect(cloudRun.executions.size).toBe(executions);
  });

  it.each(cases.filter((c) => c.kind === 'cluster').map((c) => [c.file, c] as const))(
    '%s: reported in the status with its reason, no execution',
    async (_file, c) => {
      const id = seed(
        c.input as { id?: string; spec: Record<string, unknown>; placement_namespace?: string },
      );
      expect(await pushPubSub(adapterUrl, reconcileEvent({ id, generation: 1 }))).toBe(204);
      const status = await statusOf(id);
      const available = status?.conditions.find((k) => k.type === 'Available');
      expect(available?.reason).toBe(c.expect.status_reason);
      expect(available?.message).toMatch(new RegExp(c.expect.status_message!));
      expect([...cloudRun.executions.values()].filter((e) => e.env.CLUSTER_ID === id)).toEqual([]);
      expect(tasks.book.tasksOf(TEST_LAUNCH_QUEUE).filter((t) => t.name.includes(id))).toEqual([]);
      // The same event again is neither relaunched nor rewritten (no loop).
      hyperfleet.requests.clear();
      expect(await pushPubSub(adapterUrl, reconcileEvent({ id, generation: 1 }))).toBe(204);
      expect(hyperfleet.requests.list().filter((r) => r.method === 'PUT')).toEqual([]);
    },
  );

  it.each(cases.filter((c) => c.kind === 'pull-secret').map((c) => [c.file, c] as const))(
    '%s: the job fails permanently (exit 3) and the status says why, nothing stored',
    async (_file, c) => {
      const id = seed({
        spec: {
          platform: { type: 'gcp', gcp: { projectID: 'demo-project' } },
          pullSecret: { data: (c.input as { data: unknown }).data },
        },
      });
      const run = await runJob({
        SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
        HYPERFLEET_API_BASE_URL: hyperfleet.baseUrl,
        PULL_SECRET_SOURCE: 'cluster-spec',
        GCP_PROJECT_ID: 'demo-project',
        CLUSTER_ID: id,
        GENERATION: '1',
        LAUNCH_ATTEMPT: '1',
        CLOUD_RUN_EXECUTION: `pullsecret-job-bad${counter}`,
      });
      expect(run.code).toBe(EXIT_CODES.permanent);
      expect(run.result.reason).toBe('InvalidPullSecret');
      expect(
        sm.requests
          .list()
          .filter((r) => r.method !== 'AccessSecretVersion' && r.target.includes(id)),
      ).toEqual([]);
      expect(
        await pushPubSub(reporterUrl, run.result, {
          topic: 'pullsecret-job-results',
          attributes: { type: RESULT_MESSAGE_TYPE },
        }),
      ).toBe(204);
      const own = readOwnStatus((await hyperFleetClient(hyperfleet).listStatuses(id)) ?? []);
      expect(own).toMatchObject({
        availableReason: c.expect.status_reason,
        health: 'False',
        data: { failure_kind: 'permanent' },
      });
      const health = (await statusOf(id))?.conditions.find((k) => k.type === 'Health');
      expect(health?.message).toMatch(new RegExp(c.expect.status_message!));
    },
  );
});
