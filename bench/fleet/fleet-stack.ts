import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { v2 } from '@google-cloud/run';
import { loadAdapterConfig } from '../../functions/adapter/config/config';
import { createAdapterHandler } from '../../functions/adapter/flows/handle-event';
import { compilePreconditions } from '../../functions/adapter/decision/preconditions';
import { CloudTasksLaunchQueue } from '../../functions/adapter/launch-queue/cloud-tasks-launch-queue';
import { loadJobConfig } from '../../functions/pull-secret-job/config/config';
import { GoogleSecretStore } from '../../functions/pull-secret-job/secret-manager/google-secret-store';
import { exitCodeFor } from '../../functions/pull-secret-job/run/job-outcome';
import { createCoreV1Api } from '../../functions/pull-secret-job/kubernetes/kubernetes-access';
import { KubernetesClusterSecrets } from '../../functions/pull-secret-job/kubernetes/kubernetes-cluster-secrets';
import { runPullSecretJob } from '../../functions/pull-secret-job/run/run-pull-secret-job';
import { CloudRunExecutionReader } from '../../shared/executions/cloud-run-execution-reader';
import { createReporterHandler } from '../../functions/reporter/report/handle-report';
import { startCloudRunEmulator } from '../../emulators/cloud-run/server';
import { startCloudTasksEmulator } from '../../emulators/cloud-tasks/server';
import { startHyperFleetApiEmulator } from '../../emulators/hyperfleet-api/server';
import {
  LOCAL_MANAGEMENT_CLUSTER,
  LOCAL_SIMULATED_ADAPTERS,
} from '../../emulators/pullsecret/hyperfleet/simulated-adapters';
import { startKubeApiServerEmulator } from '../../emulators/kube-apiserver/server';
import { startSecretManagerEmulator } from '../../emulators/secret-manager/server';
import { Sentinel } from '../../emulators/pullsecret/sentinel/sentinel';
import { googleClientOptions } from '../../shared/gcp/client-options';
import { CloudTasksClient } from '../../shared/gcp/lazy/cloud-tasks';
import { RESULT_MESSAGE_TYPE } from '../../shared/job-result';
import { nullLogger } from '../../shared/logging/null-logger';
import { StoreClusterLister } from './store-cluster-lister';
import { VirtualClock } from './virtual-clock';
import { localHyperFleetClient } from '../../emulators/pullsecret/hyperfleet/local-hyperfleet-client';

const JOB = 'projects/demo-fleet/locations/local/jobs/pullsecret-job';
const LAUNCH_QUEUE = 'projects/demo-fleet/locations/local/queues/pullsecret-launches';
const LAUNCHER = 'pullsecret-launcher@demo-fleet.iam.gserviceaccount.com';
/**
 * The launch queue as Terraform makes it by default (terraform/modules/pullsecret-adapter:
 * variables.tf `launch_queue`, launch-queue.tf): rate_per_minute 120 (max_dispatches_per_second =
 * rate / 60), max_concurrent 10, max_attempts 8, backoff 10 s to 300 s doubling 4 times.
 */
export const TERRAFORM_LAUNCH_QUEUE = {
  ratePerMinute: 120,
  maxConcurrent: 10,
  retry: { maxAttempts: 8, minBackoff: '10s', maxBackoff: '300s', maxDoublings: 4 },
} as const;
/** Sentinel's tick. */
export const STEP_MS = 5_000;
/** Eventarc's subscription retries a failed delivery with backoff from 10 s to 600 s. */
const REDELIVERY_MIN_MS = 10_000;
const REDELIVERY_MAX_MS = 600_000;

/** How the simulated fleet is set up; every absent setting is the adapter's default. */
export interface FleetSettings {
  /** The Cloud Run emulator's "Job run requests per minute per region" quota; absent: none. */
  readonly runJobQuotaPerMinute?: number;
  /** The launch queue's rate (Terraform's launch_queue.rate_per_minute); absent: its default, 120. */
  readonly queueRatePerMinute?: number;
  /** Adapter instances (each its own handler and clients), given the events in turn; absent: 1. */
  readonly instances?: number;
}

const pubsubEvent = (data: unknown, attributes: Record<string, string> = {}) => ({
  type: 'google.cloud.pubsub.topic.v1.messagePublished',
  id: randomUUID(),
  source: '//pubsub.googleapis.com/projects/demo-fleet/topics/simulated',
  specversion: '1.0',
  data: {
    message: {
      data: Buffer.from(JSON.stringify(data)).toString('base64'),
      attributes,
      messageId: randomUUID(),
    },
  },
});

/** A failed delivery waiting for Pub/Sub's redelivery. */
interface Redelivery {
  readonly event: ReturnType<typeof pubsubEvent>;
  readonly dueMs: number;
  readonly attempt: number;
}

/**
 * A fleet of `count` clusters with Sentinel's rules (re-send every 10 s until reconciled, every
 * 30 min after): the real adapter, job and reporter code against the emulators, on a virtual
 * clock. Pub/Sub between them is replaced by direct calls (a failed delivery is redelivered with
 * Eventarc's backoff); jobs run in the Cloud Run emulator's process (`inProcessTasks`), so a
 * thousand executions take seconds; Sentinel reads the HyperFleet emulator's store directly
 * (StoreClusterLister: its list calls are counted, not made). The adapter runs with its default
 * settings (loadAdapterConfig) and launches through the Cloud Tasks emulator, on the same clock
 * and dispatching only when a step says so: the queue (Terraform's settings unless `settings`
 * says otherwise) sends each RunJob to the Cloud Run emulator's REST jobs.run at the instant its
 * rate allows, as Cloud Tasks would.
 */
export async function startFleet(count: number, settings: FleetSettings = {}) {
  process.env.METADATA_SERVER_DETECTION = 'none';
  const clock = new VirtualClock(Date.now());
  const defaults = loadAdapterConfig({
    HYPERFLEET_API_BASE_URL: 'http://127.0.0.1:1',
    PULL_SECRET_JOB: JOB,
    LAUNCH_QUEUE,
    LAUNCHER_SERVICE_ACCOUNT: LAUNCHER,
  });
  const queueRatePerMinute = settings.queueRatePerMinute ?? TERRAFORM_LAUNCH_QUEUE.ratePerMinute;
  // Reads do not move the queue's clock: its rate tokens and schedule times are whole instants.
  const tasks = await startCloudTasksEmulator({
    now: () => clock.ms(),
    dispatch: 'manual',
    queues: [
      {
        name: LAUNCH_QUEUE,
        rateLimits: {
          maxDispatchesPerSecond: queueRatePerMinute / 60,
          maxConcurrentDispatches: TERRAFORM_LAUNCH_QUEUE.maxConcurrent,
        },
        retryConfig: { ...TERRAFORM_LAUNCH_QUEUE.retry },
      },
    ],
  });
  /**
   * The instant the queue dispatched the RunJob being handled: a RunJob reaches Cloud Run when the
   * queue sends it (no network here; the 1 ms a read moves the clock orders stamps, it is no
   * latency), so the quota and the busiest minute count it then.
   */
  let dispatchAt = clock.ms();
  const hyperfleet = await startHyperFleetApiEmulator({
    now: clock.now,
    simulatedAdapters: LOCAL_SIMULATED_ADAPTERS,
    requiredAdapters: ['validation', 'dns', 'placement', 'pullsecret'],
  });
  const sm = await startSecretManagerEmulator();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleet-'));
  const kube = await startKubeApiServerEmulator({ stateDir: path.join(workDir, 'kube') });
  const api = localHyperFleetClient(hyperfleet.baseUrl, nullLogger, {
    retryAttempts: 3,
    timeoutMs: 30_000,
  });
  const smClient = new SecretManagerServiceClient(googleClientOptions(sm.endpoint, 'demo-fleet'));
  const secretStore = new GoogleSecretStore(smClient, {
    timeoutMs: 30_000,
    retry: { attempts: 4, baseDelayMs: 100, maxDelayMs: 1000 },
    logger: nullLogger,
  });
  const { api: core } = await createCoreV1Api({ kind: 'kubeconfig', path: kube.kubeconfigPath });
  const clusterSecrets = new KubernetesClusterSecrets(core, {
    timeoutMs: 30_000,
    retry: { attempts: 4, baseDelayMs: 100, maxDelayMs: 1000 },
    logger: nullLogger,
    identityHint: 'fleet',
  });

  // The emulator calls the reporter, and the reporter reads executions from the emulator.
  const late: { reporter?: ReturnType<typeof createReporterHandler> } = {};
  const jobEnv = {
    SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
    KUBECONFIG: kube.kubeconfigPath,
    // The simulated placement adapter puts every cluster on this management cluster.
    DEFAULT_MANAGEMENT_CLUSTER: LOCAL_MANAGEMENT_CLUSTER,
    HYPERFLEET_API_BASE_URL: hyperfleet.baseUrl,
    LOG_LEVEL: 'error',
  };
  const cloudRun = await startCloudRunEmulator({
    jobs: [{ name: JOB, command: ['/bin/false'], env: jobEnv, maxRetries: 0, timeoutSeconds: 600 }],
    // The real job, in this process: validation, Secret Manager and Kubernetes phases, its result.
    inProcessTasks: {
      [JOB]: async (env) => {
        const config = loadJobConfig(env);
        const result = await runPullSecretJob(
          config,
          {
            secretStore,
            clusterSecrets: async () => clusterSecrets,
            hyperfleet: api,
            logger: nullLogger,
            now: clock.now,
          },
          { dryRun: false },
        );
        await late.reporter!(pubsubEvent(result, { type: RESULT_MESSAGE_TYPE }));
        return exitCodeFor(result);
      },
    },
    onExecutionFinished: async (entry) => {
      await late.reporter!(pubsubEvent(entry));
    },
    ...(settings.runJobQuotaPerMinute !== undefined
      ? { runJobQuotaPerMinute: settings.runJobQuotaPerMinute }
      : {}),
    now: () => dispatchAt,
  });
  const executionsClient = new v2.ExecutionsClient(googleClientOptions(cloudRun.endpoint));
  const executionReader = new CloudRunExecutionReader(executionsClient, {
    timeoutMs: 30_000,
    retry: { attempts: 3, baseDelayMs: 100, maxDelayMs: 1000 },
  });
  late.reporter = createReporterHandler({
    hyperfleet: api,
    executions: executionReader,
    jobName: JOB,
    logger: nullLogger,
    now: clock.now,
  });
  // Each instance has its own handler (its own per-cluster locks) and its own Cloud Tasks client;
  // nothing about the launch rate is shared between them but the queue.
  const tasksClients = Array.from(
    { length: settings.instances ?? 1 },
    () => new CloudTasksClient(googleClientOptions(tasks.endpoint)),
  );
  const instances = tasksClients.map((client) =>
    createAdapterHandler({
      hyperfleet: api,
      launchQueue: {
        queue: new CloudTasksLaunchQueue(client, {
          target: { jobName: JOB, endpoint: cloudRun.apiUrl, serviceAccountEmail: LAUNCHER },
          timeoutMs: 30_000,
          retry: { attempts: 3, baseDelayMs: 100, maxDelayMs: 1000 },
          logger: nullLogger,
        }),
        name: LAUNCH_QUEUE,
        jobName: JOB,
      },
      lookup: executionReader,
      preconditions: compilePreconditions(defaults.preconditions),
      settings: defaults.decision,
      pullSecret: {
        specPath: defaults.pullSecretSpecPath,
        additionalSpecPath: defaults.pullSecretAdditionalSpecPath,
      },
      logger: nullLogger,
      now: clock.now,
    }),
  );
  const queue: Record<string, unknown>[] = [];
  const redeliveries: Redelivery[] = [];
  const ids: string[] = [];
  const sentinelSource = new StoreClusterLister(hyperfleet.store, () => ids);
  const sentinel = new Sentinel(sentinelSource, async (event) => void queue.push(event), {
    notReadyMs: 10_000,
    readyMs: 30 * 60_000,
  });

  // Totals, or counted as the requests happen: the emulators' logs keep only their last 100,000.
  const calls = {
    versions: 0,
    kubeWrites: 0,
    delivered: 0,
    failedDeliveries: 0,
    runJobRefused: 0,
    /** Simulated times of the RunJob calls Cloud Run accepted, for the busiest minute. */
    runJobAccepted: [] as number[],
    /** Attempts the queue made (a RunJob sent; a refusal is retried with the queue's backoff). */
    dispatches: 0,
  };
  sm.requests.observe((r) => {
    if (r.method === 'AddSecretVersion' && r.outcome === 'OK') calls.versions++;
  });
  kube.requests.observe((r) => {
    if (
      ['POST', 'PUT', 'PATCH'].includes(r.method) &&
      // The job's reads are dry-run test patches: never stored, not writes.
      !r.dryRun &&
      Number(r.outcome) < 300 &&
      r.target.includes('/secrets')
    )
      calls.kubeWrites++;
  });
  cloudRun.requests.observe((r) => {
    if (r.method !== 'RunJob') return;
    if (r.outcome === 'OK') calls.runJobAccepted.push(dispatchAt);
    else if (r.outcome === 'RESOURCE_EXHAUSTED') calls.runJobRefused++;
  });
  tasks.requests.observe((r) => {
    if (r.method === 'Dispatch') calls.dispatches++;
  });

  const pullSecret = (n: number) =>
    JSON.stringify({
      auths: { 'quay.io': { auth: Buffer.from(`fleet-robot:password-${n}`).toString('base64') } },
    });
  /** Adds `n` new clusters (Sentinel sees them at its next tick). */
  const createClusters = (n: number) => {
    for (let i = 0; i < n; i++) {
      const index = ids.length;
      const { id } = hyperfleet.store.createCluster(
        {
          kind: 'Cluster',
          name: `fleet-${index}`,
          spec: {
            platform: { type: 'gcp', gcp: { projectID: 'demo-customer-project' } },
            pullSecret: { data: pullSecret(index) },
          },
        },
        'fleet',
      ) as { id: string };
      kube.store.createNamespace({ metadata: { name: `clusters-${id}` } }, 'placement');
      ids.push(id);
    }
  };
  createClusters(count);

  let turn = 0;
  /** One delivery, to the instances in turn; a failure is redelivered with Pub/Sub's backoff, as Eventarc's subscription does. */
  const deliver = async (event: ReturnType<typeof pubsubEvent>, attempt: number) => {
    calls.delivered++;
    const adapter = instances[turn++ % instances.length]!;
    try {
      await adapter(event);
    } catch {
      calls.failedDeliveries++;
      const backoff = Math.min(REDELIVERY_MAX_MS, REDELIVERY_MIN_MS * 2 ** (attempt - 1));
      redeliveries.push({ event, dueMs: clock.ms() + backoff, attempt: attempt + 1 });
    }
  };

  /** Waits for the executions under way (in this process, they take milliseconds). */
  const finishExecutions = () =>
    Promise.all(
      [...cloudRun.executions.values()]
        .filter((e) => !e.done)
        .map((e) => cloudRun.waitForExecution(e.name, 120_000)),
    );

  /**
   * The queue dispatches what it may before `endMs`: the clock moves to each instant the queue
   * names (a rate token, a retry's schedule time) and the attempts due then are sent.
   */
  const dispatchLaunches = async (endMs: number) => {
    for (;;) {
      const due = tasks.nextDueMs(LAUNCH_QUEUE);
      if (due === undefined || due >= endMs) return;
      clock.moveTo(due);
      dispatchAt = clock.ms();
      if ((await tasks.dispatchDue()).length === 0) return;
    }
  };

  /**
   * One step: the queue dispatches the launches its rate allows within the step and their
   * executions finish; then Sentinel ticks, and its events and the redeliveries due go to the
   * adapter instances, 25 at a time (the launches they queue are dispatched from the next step on).
   */
  const step = async (stepMs = STEP_MS) => {
    clock.advance(stepMs);
    const start = clock.ms();
    await dispatchLaunches(start + stepMs);
    await finishExecutions();
    await sentinel.tick(start);
    const batch: [ReturnType<typeof pubsubEvent>, number][] = queue
      .splice(0)
      .map((event) => [pubsubEvent(event), 1]);
    const due = clock.ms();
    for (let i = redeliveries.length - 1; i >= 0; i--) {
      const r = redeliveries[i]!;
      if (r.dueMs > due) continue;
      redeliveries.splice(i, 1);
      batch.push([r.event, r.attempt]);
    }
    for (let i = 0; i < batch.length; i += 25)
      await Promise.all(batch.slice(i, i + 25).map(([event, attempt]) => deliver(event, attempt)));
  };

  const counters = () => ({
    executions: cloudRun.executions.size,
    secretManagerCalls: sm.requests.total,
    cloudRunCalls: cloudRun.requests.total,
    versions: calls.versions,
    kubeWrites: calls.kubeWrites,
    hyperfleetCalls: hyperfleet.requests.total,
    sentinelCalls: sentinelSource.pages,
    delivered: calls.delivered,
    failedDeliveries: calls.failedDeliveries,
    runJobRefused: calls.runJobRefused,
    dispatches: calls.dispatches,
  });
  const converged = () =>
    ids.filter((id) => {
      const cluster = hyperfleet.store.cluster(id);
      const condition = cluster?.conditions.find((c) => c.type === 'PullsecretSuccessful');
      return condition?.status === 'True' && condition.observed_generation === cluster?.generation;
    }).length;

  const stop = async () => {
    await Promise.all(tasksClients.map((client) => client.close()));
    await executionsClient.close();
    await smClient.close();
    await tasks.stop();
    await cloudRun.stop();
    await kube.stop();
    await sm.stop();
    await hyperfleet.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  };
  return {
    ids,
    clock,
    hyperfleet,
    defaults,
    queueRatePerMinute,
    runJobAccepted: calls.runJobAccepted,
    createClusters,
    changePullSecret: (id: string, n: number) =>
      hyperfleet.store.patchCluster(id, { spec: { pullSecret: { data: pullSecret(n) } } }, 'fleet'),
    step,
    counters,
    converged,
    stop,
  };
}

export type Fleet = Awaited<ReturnType<typeof startFleet>>;

/** The most RunJob calls Cloud Run accepted in any 60 s (simulated). */
export function busiestMinute(accepted: readonly number[]): number {
  let most = 0;
  for (let i = 0, j = 0; j < accepted.length; j++) {
    while (accepted[j]! - accepted[i]! >= 60_000) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}
