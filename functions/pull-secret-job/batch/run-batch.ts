import { selectorText } from '../../../shared/batch/batch-request';
import { eachLimited } from '../../../shared/concurrency/each-limited';
import { parseEnv } from '../../../shared/config/parse-env';
import { ConfigError, PermanentError } from '../../../shared/errors';
import { googleClientOptions } from '../../../shared/gcp/client-options';
import { SecretManagerServiceClient } from '../../../shared/gcp/secret-manager-client';
import { versionNumberOf } from '../../../shared/gcp/secret-manager-names';
import { HyperFleetClient } from '../../../shared/hyperfleet/client';
import { authProviderFor, toHyperFleetApiConfig } from '../../../shared/hyperfleet/config';
import type { Cluster } from '../../../shared/hyperfleet/schemas';
import { EXIT_CODES } from '../../../shared/job-result';
import { createLogger, type Logger } from '../../../shared/logging/logger';
import type { SecretRedactor } from '../../../shared/logging/secret-redactor';
import { layoutOf } from '../../../shared/pull-secret/namespace-layout';
import { refuseRedirects } from '../config/redirect-guard';
import { readDefault } from '../run/resolve-pull-secret';
import { GoogleSecretStore } from '../secret-manager/google-secret-store';
import { taskClusters } from './batch-pages';
import { BATCH_ONLY, batchEnvSchema, type BatchSettings } from './batch-env';
import type { BatchSelectionContext } from './batch-selection';
import { runCluster, type BatchCounts, type TaskRun } from './batch-cluster';
import { ClusterRunner } from './cluster-runner';
import { HeldManagementClusters } from './held-management-clusters';
import { taskPacer } from './connect-gateway-pacing';

// One task of a batch execution (shared/batch/batch-request.ts): its share of the fleet
// (batch-pages.ts), re-applied a few clusters at a time, each exactly as a launched execution
// would (cluster-runner.ts: the same configuration, claim, writes and result message, which the
// reporter turns into the cluster's status). One container start serves hundreds of clusters:
// that is what makes a rotation take minutes at 100,000 clusters, under a RunJob quota of ~180 a
// minute. The default pull secret is read once for the task (readDefault keeps it): every cluster
// gets the same version, Secret Manager is listed once (its read quota is 600 a minute a
// project), and a default that cannot be read touches no cluster at all.

/**
 * `pull-secret run-job pull-secret` with BATCH_SELECTOR set: one task of a batch. Exits 0 when
 * every cluster of its share was looked at (each cluster's failure is its own, reported on its
 * status); 3 when the default pull secret version cannot be read (nothing was touched); 4 when the
 * cluster list could not be read (the `batch-failed` entry raises the rotation alert).
 */
export async function runBatchTask(
  env: NodeJS.ProcessEnv,
  redactor: SecretRedactor,
): Promise<number> {
  let settings: BatchSettings;
  try {
    refuseRedirects(env, process.argv0);
    settings = parseEnv(batchEnvSchema, env, 'pull secret job (batch)');
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return EXIT_CODES.configuration;
  }
  const logger = createLogger({
    component: 'pullsecret-job',
    level: settings.LOG_LEVEL,
    format: settings.LOG_FORMAT,
    ...(settings.GOOGLE_CLOUD_PROJECT ? { projectId: settings.GOOGLE_CLOUD_PROJECT } : {}),
    redactor,
  });
  const task = {
    reason: settings.BATCH_REASON,
    selector: selectorText(settings.BATCH_SELECTOR),
    task_index: settings.CLOUD_RUN_TASK_INDEX,
    task_count: settings.CLOUD_RUN_TASK_COUNT,
  };
  logger.info(
    `Batch task ${task.task_index + 1} of ${task.task_count}: ${task.reason} of ${task.selector}`,
    { event: 'batch-started', ...task },
  );
  const client = new SecretManagerServiceClient(
    googleClientOptions({
      ...(settings.SECRET_MANAGER_EMULATOR_HOST
        ? { emulatorHost: settings.SECRET_MANAGER_EMULATOR_HOST }
        : {}),
      ...(settings.SECRET_MANAGER_API_ENDPOINT
        ? { apiEndpoint: settings.SECRET_MANAGER_API_ENDPOINT }
        : {}),
    }),
  );
  const clusterEnv = Object.fromEntries(
    Object.entries(env).filter(([name]) => !BATCH_ONLY.includes(name)),
  );
  const pacer = taskPacer(settings.CONNECT_GATEWAY_REQUESTS_PER_MINUTE, task, logger);
  const runner = new ClusterRunner(clusterEnv, client, logger, redactor, pacer);
  const counts: BatchCounts = {
    clusters_listed: 0,
    clusters_applied: 0,
    clusters_failed: 0,
    clusters_stood_aside: 0,
    clusters_skipped: 0,
    clusters_left_to_adapter: 0,
    clusters_held: 0,
    paced_ms: 0,
  };
  let exitCode: number = EXIT_CODES.success;
  try {
    await checkDefault(settings, client, logger);
    await runShare(settings, { runner, counts, logger });
    counts.paced_ms = pacer.pacedMs;
    logger.info(
      `Batch task ${task.task_index + 1} of ${task.task_count} done: ${counts.clusters_applied} applied, ${counts.clusters_failed} failed, ${counts.clusters_stood_aside} stood aside, ${counts.clusters_skipped} skipped (${counts.clusters_left_to_adapter} left to the adapter, ${counts.clusters_held} held by a paused management cluster) of ${counts.clusters_listed}; ${(counts.paced_ms / 1000).toFixed(1)} s waited for Connect Gateway`,
      { event: 'batch-finished', ...task, ...counts },
    );
  } catch (error) {
    const permanent = error instanceof PermanentError;
    logger.error(
      `Batch task stopped${permanent ? ', nothing more touched' : ''}: ${error instanceof Error ? error.message : String(error)}`,
      { event: 'batch-failed', ...task, ...counts, paced_ms: pacer.pacedMs },
    );
    exitCode = permanent ? EXIT_CODES.permanent : EXIT_CODES.transient;
  } finally {
    await runner.close();
    await client.close();
  }
  await logger.close();
  return exitCode;
}

/**
 * Reads the default once before any cluster (`latest`: the newest enabled version), and names it
 * in the log: the task's clusters read the same (readDefault keeps it for the process). Throws
 * PermanentError (DefaultPullSecretNotFound) when it cannot be read: then no cluster is touched,
 * whatever a notification said.
 */
async function checkDefault(
  settings: BatchSettings,
  client: SecretManagerServiceClient,
  logger: Logger,
): Promise<void> {
  const configured = settings.PULL_SECRET_SECRET_VERSION;
  if (!configured) return;
  const store = new GoogleSecretStore(client, {
    timeoutMs: settings.GCP_API_TIMEOUT,
    retry: {
      attempts: settings.RETRY_ATTEMPTS,
      baseDelayMs: settings.RETRY_BASE_DELAY,
      maxDelayMs: 30_000,
    },
    logger,
    identityHint: "the job's service account",
  });
  const payload = await readDefault(store, configured);
  const number = String(versionNumberOf(payload.name));
  logger.info(`Default pull secret for this task: ${configured}, version ${number}`, {
    default_version: number,
  });
}

/** The task's share, BATCH_CONCURRENCY clusters at once; a rotation retries what stood aside once. */
async function runShare(settings: BatchSettings, run: TaskRun): Promise<void> {
  const hyperfleetConfig = toHyperFleetApiConfig(settings);
  const hyperfleet = new HyperFleetClient(hyperfleetConfig, {
    auth: authProviderFor(hyperfleetConfig.auth),
    logger: run.logger,
    userAgent: 'pullsecret-job',
  });
  const context: BatchSelectionContext = {
    selector: settings.BATCH_SELECTOR,
    layout: layoutOf(settings),
    pullSecret: {
      specPath: settings.PULL_SECRET_SPEC_PATH,
      additionalSpecPath: settings.PULL_SECRET_ADDITIONAL_SPEC_PATH,
      ...(settings.PULL_SECRET_SECRET_VERSION
        ? { defaultVersion: settings.PULL_SECRET_SECRET_VERSION }
        : {}),
    },
    launchIdPrefix: `batch-${settings.CLOUD_RUN_EXECUTION}`,
  };
  const held = heldClusters(settings, run.logger);
  const stoodAside: Cluster[] = [];
  const one = (cluster: Cluster, secondLook: boolean) =>
    runCluster(cluster, {
      hyperfleet,
      context,
      held,
      defaultManagementCluster: settings.DEFAULT_MANAGEMENT_CLUSTER,
      run,
    }).then((outcome) => {
      if (outcome === 'stood-aside' && !secondLook) stoodAside.push(cluster);
    });
  try {
    const share = {
      index: settings.CLOUD_RUN_TASK_INDEX,
      count: settings.CLOUD_RUN_TASK_COUNT,
      pageSize: settings.BATCH_PAGE_SIZE,
    };
    for await (const clusters of taskClusters(hyperfleet, settings.BATCH_SELECTOR, share)) {
      run.counts.clusters_listed += clusters.length;
      await eachLimited(clusters, settings.BATCH_CONCURRENCY, (c) => one(c, false));
    }
    // A rotation whose run stood aside for another (a resync, an adapter's run of the same
    // attempt) looks once more, from the status that run has left: the next attempt then takes
    // the claim, and the newer default's stamp keeps an older run from undoing it.
    if (settings.BATCH_REASON === 'rotation' && stoodAside.length > 0) {
      run.counts.clusters_stood_aside -= stoodAside.length;
      await eachLimited(stoodAside, settings.BATCH_CONCURRENCY, (c) => one(c, true));
    }
  } finally {
    await held?.close();
  }
}

function heldClusters(settings: BatchSettings, logger: Logger): HeldManagementClusters | undefined {
  if (!settings.LAUNCH_QUEUE_PER_MANAGEMENT_CLUSTER || !settings.LAUNCH_QUEUE) return undefined;
  return new HeldManagementClusters(
    {
      launchQueue: settings.LAUNCH_QUEUE,
      endpoint: {
        ...(settings.CLOUD_TASKS_API_ENDPOINT
          ? { apiEndpoint: settings.CLOUD_TASKS_API_ENDPOINT }
          : {}),
        ...(settings.CLOUD_TASKS_EMULATOR_HOST
          ? { emulatorHost: settings.CLOUD_TASKS_EMULATOR_HOST }
          : {}),
      },
    },
    logger,
  );
}
