import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { v2 } from '@google-cloud/run';
import { CloudRunExecutionLookup } from '../../functions/adapter/cloud-run/cloud-run-execution-lookup';
import { CloudRunJobLauncher } from '../../functions/adapter/cloud-run/cloud-run-job-launcher';
import { createAdapterHandler } from '../../functions/adapter/flows/handle-event';
import {
  compilePreconditions,
  DEFAULT_PRECONDITIONS,
} from '../../functions/adapter/decision/preconditions';
import { CloudRunExecutionReader } from '../../shared/executions/cloud-run-execution-reader';
import { createReporterHandler } from '../../functions/reporter/report/handle-report';
import { loadJobConfig } from '../../functions/pull-secret-job/config/config';
import { GoogleSecretStore } from '../../functions/pull-secret-job/secret-manager/google-secret-store';
import { exitCodeFor } from '../../functions/pull-secret-job/run/job-outcome';
import { createCoreV1Api } from '../../functions/pull-secret-job/kubernetes/kubernetes-access';
import { KubernetesClusterSecrets } from '../../functions/pull-secret-job/kubernetes/kubernetes-cluster-secrets';
import { runPullSecretJob } from '../../functions/pull-secret-job/run/run-job';
import { startCloudRunEmulator } from '../../emulators/cloud-run/server';
import { startHyperFleetApiEmulator } from '../../emulators/hyperfleet-api/server';
import {
  LOCAL_MANAGEMENT_CLUSTER,
  LOCAL_SIMULATED_ADAPTERS,
} from '../../emulators/pullsecret/hyperfleet/simulated-adapters';
import { startKubeApiServerEmulator } from '../../emulators/kube-apiserver/server';
import { startSecretManagerEmulator } from '../../emulators/secret-manager/server';
import { Sentinel } from '../../emulators/pullsecret/sentinel/sentinel';
import { googleClientOptions } from '../../shared/gcp/client-options';
import { RESULT_MESSAGE_TYPE } from '../../shared/job-result';
import { nullLogger } from '../../shared/logging/null-logger';
import { round } from '../stats';
import { StoreClusterLister } from './store-cluster-lister';
import { VirtualClock } from './virtual-clock';
import { localHyperFleetClient } from '../../emulators/pullsecret/hyperfleet/local-hyperfleet-client';

const JOB = 'projects/demo-fleet/locations/local/jobs/pullsecret-job';
const STEP_MS = 5_000;
const HOUR_MS = 3_600_000;

/** What one simulated hour cost, in totals and per cluster. */
export interface FleetRunFigures {
  readonly name: string;
  readonly eventsDelivered: number;
  readonly executions: number;
  readonly secretManagerVersions: number;
  readonly kubernetesWrites: number;
  /** Calls by the adapter, the job and the reporter (Sentinel's polling is counted apart). */
  readonly hyperfleetCalls: number;
  readonly sentinelListCalls: number;
  readonly converged: number;
  readonly perCluster: {
    events: number;
    executions: number;
    versions: number;
    kubernetesWrites: number;
    hyperfleetCalls: number;
    /** Every Secret Manager call (job and reporter), and every Cloud Run Admin API call (adapter, reporter). */
    secretManagerCalls: number;
    cloudRunCalls: number;
  };
  readonly wallSeconds: number;
}

export interface FleetFigures {
  readonly clusters: number;
  readonly changedClusters: number;
  readonly runs: readonly FleetRunFigures[];
  /** The original design launched a job for every event (per generation) and added a version on every run. */
  readonly originalDesign: {
    jobRunsUpTo: number;
    versionsUpTo: number;
    executionsRatio: number;
    versionsRatio: number;
  };
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

/**
 * A fleet of `count` clusters for two simulated hours with Sentinel's rules (re-send every 10 s
 * until reconciled, every 30 min after): the real adapter, job and reporter code against the
 * emulators, on a virtual clock. Pub/Sub between them is replaced by direct calls; jobs run in the
 * Cloud Run emulator's process (`inProcessTasks`), so a thousand executions take seconds; Sentinel
 * reads the HyperFleet emulator's store directly (StoreClusterLister: its list calls are counted,
 * not made).
 */
export async function simulateFleet(
  count: number,
  changedFraction = 0.05,
  /** Told every 10 simulated minutes (hour from 1, minutes into it, wall seconds since the hour began). */
  onProgress: (hour: number, minutes: number, wallSeconds: number) => void = () => undefined,
): Promise<FleetFigures> {
  process.env.METADATA_SERVER_DETECTION = 'none';
  const clock = new VirtualClock(Date.now());
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
  });
  const runClients = {
    jobs: new v2.JobsClient(googleClientOptions(cloudRun.endpoint)),
    executions: new v2.ExecutionsClient(googleClientOptions(cloudRun.endpoint)),
  };
  const executionReader = new CloudRunExecutionReader(runClients.executions, {
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
  const adapter = createAdapterHandler({
    hyperfleet: api,
    launcher: new CloudRunJobLauncher(runClients.jobs, JOB, {
      timeoutMs: 30_000,
      logger: nullLogger,
    }),
    lookup: new CloudRunExecutionLookup(runClients.executions, executionReader, JOB, {
      timeoutMs: 30_000,
    }),
    launchRetry: { attempts: 3, baseDelayMs: 100, maxDelayMs: 1000 },
    preconditions: compilePreconditions(DEFAULT_PRECONDITIONS),
    settings: {
      resyncIntervalMs: 6 * HOUR_MS,
      executionTimeoutMs: 25 * 60_000,
      retryBackoffBaseMs: 30_000,
      retryBackoffMaxMs: 30 * 60_000,
      permanentFailureRetryMs: HOUR_MS,
      heartbeatMs: 5 * 60_000,
      executionCheckAfterMs: 3 * 60_000,
      launchGraceMs: 190_000,
    },
    pullSecret: {
      specPath: 'spec.pullSecret.data',
      additionalSpecPath: 'spec.pullSecret.additional',
    },
    logger: nullLogger,
    now: clock.now,
  });
  const queue: Record<string, unknown>[] = [];
  let delivered = 0;
  const ids: string[] = [];
  const sentinelSource = new StoreClusterLister(hyperfleet.store, () => ids);
  const sentinel = new Sentinel(sentinelSource, async (event) => void queue.push(event), {
    notReadyMs: 10_000,
    readyMs: 30 * 60_000,
  });

  const pullSecret = (n: number) =>
    JSON.stringify({
      auths: { 'quay.io': { auth: Buffer.from(`fleet-robot:password-${n}`).toString('base64') } },
    });
  for (let i = 0; i < count; i++) {
    const { id } = hyperfleet.store.createCluster(
      {
        kind: 'Cluster',
        name: `fleet-${i}`,
        spec: {
          platform: { type: 'gcp', gcp: { projectID: 'demo-customer-project' } },
          pullSecret: { data: pullSecret(i) },
        },
      },
      'fleet',
    ) as { id: string };
    kube.store.createNamespace({ metadata: { name: `clusters-${id}` } }, 'placement');
    ids.push(id);
  }

  // Totals, or counted as the requests happen: the emulators' logs keep only their last 100,000.
  const calls = { versions: 0, kubeWrites: 0 };
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
  const counters = () => ({
    executions: cloudRun.executions.size,
    secretManagerCalls: sm.requests.total,
    cloudRunCalls: cloudRun.requests.total,
    versions: calls.versions,
    kubeWrites: calls.kubeWrites,
    hyperfleetCalls: hyperfleet.requests.total,
    sentinelCalls: sentinelSource.pages,
    delivered,
  });
  const converged = () =>
    ids.filter((id) => {
      const cluster = hyperfleet.store.cluster(id);
      const condition = cluster?.conditions.find((c) => c.type === 'PullsecretSuccessful');
      return condition?.status === 'True' && condition.observed_generation === cluster?.generation;
    }).length;

  /** One simulated hour: Sentinel ticks every 5 s; events go to the adapter, 25 at a time; executions finish within the step. */
  const simulateHour = async (hour: number, name: string): Promise<FleetRunFigures> => {
    const started = Date.now();
    const before = counters();
    for (let elapsed = 0; elapsed < HOUR_MS; elapsed += STEP_MS) {
      if (elapsed > 0 && elapsed % (10 * 60_000) === 0)
        onProgress(hour, elapsed / 60_000, round((Date.now() - started) / 1000));
      clock.advance(STEP_MS);
      await sentinel.tick(clock.ms());
      const batch = queue.splice(0);
      for (let i = 0; i < batch.length; i += 25)
        await Promise.all(batch.slice(i, i + 25).map((event) => adapter(pubsubEvent(event))));
      delivered += batch.length;
      await Promise.all(
        [...cloudRun.executions.values()]
          .filter((e) => !e.done)
          .map((e) => cloudRun.waitForExecution(e.name, 120_000)),
      );
    }
    const after = counters();
    const totals = {
      executions: after.executions - before.executions,
      versions: after.versions - before.versions,
      kubeWrites: after.kubeWrites - before.kubeWrites,
      hyperfleetCalls: after.hyperfleetCalls - before.hyperfleetCalls,
      sentinel: after.sentinelCalls - before.sentinelCalls,
      events: after.delivered - before.delivered,
      secretManagerCalls: after.secretManagerCalls - before.secretManagerCalls,
      cloudRunCalls: after.cloudRunCalls - before.cloudRunCalls,
    };
    return {
      name,
      eventsDelivered: totals.events,
      executions: totals.executions,
      secretManagerVersions: totals.versions,
      kubernetesWrites: totals.kubeWrites,
      hyperfleetCalls: totals.hyperfleetCalls,
      sentinelListCalls: totals.sentinel,
      converged: converged(),
      perCluster: {
        events: round(totals.events / count, 2),
        executions: round(totals.executions / count, 3),
        versions: round(totals.versions / count, 3),
        kubernetesWrites: round(totals.kubeWrites / count, 3),
        hyperfleetCalls: round(totals.hyperfleetCalls / count, 1),
        secretManagerCalls: round(totals.secretManagerCalls / count, 2),
        cloudRunCalls: round(totals.cloudRunCalls / count, 2),
      },
      wallSeconds: round((Date.now() - started) / 1000),
    };
  };

  try {
    const first = await simulateHour(1, `hour 1: ${count} new clusters`);
    const changed = ids.slice(0, Math.round(count * changedFraction));
    for (const [i, id] of changed.entries())
      hyperfleet.store.patchCluster(
        id,
        { spec: { pullSecret: { data: pullSecret(100_000 + i) } } },
        'fleet',
      );
    const second = await simulateHour(
      2,
      `hour 2: ${changed.length} clusters change their pull secret`,
    );
    const events = first.eventsDelivered + second.eventsDelivered;
    const executions = first.executions + second.executions;
    const versions = first.secretManagerVersions + second.secretManagerVersions;
    return {
      clusters: count,
      changedClusters: changed.length,
      runs: [first, second],
      originalDesign: {
        jobRunsUpTo: events,
        versionsUpTo: events,
        executionsRatio: round(events / Math.max(1, executions), 1),
        versionsRatio: round(events / Math.max(1, versions), 1),
      },
    };
  } finally {
    await runClients.jobs.close();
    await runClients.executions.close();
    await smClient.close();
    await cloudRun.stop();
    await kube.stop();
    await sm.stop();
    await hyperfleet.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}
