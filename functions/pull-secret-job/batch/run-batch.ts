import * as z from 'zod';
import {
  BATCH_REASONS,
  batchSelectorSchema,
  selectorText,
} from '../../../shared/batch/batch-request';
import { ConfigError } from '../../../shared/errors';
import { HyperFleetClient } from '../../../shared/hyperfleet/client';
import {
  authProviderFor,
  hyperFleetApiEnvShape,
  toHyperFleetApiConfig,
} from '../../../shared/hyperfleet/config';
import type { Cluster } from '../../../shared/hyperfleet/schemas';
import { EXIT_CODES } from '../../../shared/job-result';
import { createLogger, LOG_FORMATS, LOG_LEVELS, type Logger } from '../../../shared/logging/logger';
import type { SecretRedactor } from '../../../shared/logging/secret-redactor';
import { parseEnv } from '../../../shared/config/parse-env';
import { layoutOf, namespaceLayoutEnvShape } from '../../../shared/pull-secret/namespace-layout';
import { refuseRedirects } from '../config/redirect-guard';
import { secretVersionNameSchema } from '../../../shared/gcp/secret-manager-names';
import { chooseForBatch, type BatchSelectionContext } from './batch-selection';
import { ClusterRunner } from './cluster-runner';
import { connectGatewayQuotaVariable, taskPacer } from './connect-gateway-pacing';

// One task of a batch execution (shared/batch/batch-request.ts): it takes every CLOUD_RUN_TASK_COUNT-th
// page of the HyperFleet API's cluster list, starting at its CLOUD_RUN_TASK_INDEX, and re-applies
// the clusters batch-selection.ts chooses, a few at a time, each exactly as a launched execution
// would (the same configuration, claim, writes and result message, which the reporter turns into
// the cluster's status). One container start serves hundreds of clusters: that is what makes a
// rotation take minutes at 100,000 clusters, under a RunJob quota of ~180 a minute.

const positiveInt = (fallback: number, max: number) =>
  z.coerce.number().int().min(1).max(max).default(fallback);

const batchEnvSchema = z.object({
  BATCH_SELECTOR: batchSelectorSchema,
  BATCH_REASON: z.enum(BATCH_REASONS, { message: 'must be rotation or resync' }),
  CLOUD_RUN_TASK_INDEX: z.coerce.number().int().min(0).default(0),
  CLOUD_RUN_TASK_COUNT: positiveInt(1, 10_000),
  CLOUD_RUN_EXECUTION: z.string().min(1).default('batch-local'),
  /** Clusters per page of the list (the API's largest page is 100). */
  BATCH_PAGE_SIZE: positiveInt(100, 100),
  /** Clusters re-applied at once by one task. */
  BATCH_CONCURRENCY: positiveInt(4, 32),
  /** The fleet host project's Connect Gateway quota, 95 % of it shared by the tasks. */
  CONNECT_GATEWAY_REQUESTS_PER_MINUTE: connectGatewayQuotaVariable,
  PULL_SECRET_SPEC_PATH: z.string().default('spec.pullSecret.data'),
  PULL_SECRET_ADDITIONAL_SPEC_PATH: z.string().default('spec.pullSecret.additional'),
  /** The default pull secret: the rotation's new version, or the configured one. */
  PULL_SECRET_SECRET_VERSION: secretVersionNameSchema.optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  LOG_FORMAT: z.enum(LOG_FORMATS).default('json'),
  GOOGLE_CLOUD_PROJECT: z.string().optional(),
  ...namespaceLayoutEnvShape,
  ...hyperFleetApiEnvShape,
});

/** Counts one task reports in its `batch-finished` entry (the fleet alerts read it). */
export interface BatchCounts {
  clusters_listed: number;
  clusters_applied: number;
  clusters_failed: number;
  clusters_skipped: number;
  /** Of the skipped: in the adapter's hands (not converged, in flight, moving). */
  clusters_left_to_adapter: number;
  /** ms the task's clusters waited for Connect Gateway tokens, summed (concurrent waits add up). */
  paced_ms: number;
}

/** The variables the batch run reads that a per-cluster run must not see. */
const BATCH_ONLY = [
  'BATCH_SELECTOR',
  'BATCH_REASON',
  'BATCH_PAGE_SIZE',
  'BATCH_CONCURRENCY',
  'CONNECT_GATEWAY_REQUESTS_PER_MINUTE',
];

/**
 * `pull-secret run-job pull-secret` with BATCH_SELECTOR set: one task of a batch. Exits 0 when
 * every cluster it chose was run (each failure is the cluster's own, reported on its status);
 * 4 (transient) when the cluster list could not be read, so Cloud Run retries the task.
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
    {
      event: 'batch-started',
      ...task,
    },
  );
  const clusterEnv = Object.fromEntries(
    Object.entries(env).filter(([name]) => !BATCH_ONLY.includes(name)),
  );
  const pacer = taskPacer(settings.CONNECT_GATEWAY_REQUESTS_PER_MINUTE, task, logger);
  const runner = new ClusterRunner(clusterEnv, logger, redactor, pacer);
  const counts: BatchCounts = {
    clusters_listed: 0,
    clusters_applied: 0,
    clusters_failed: 0,
    clusters_skipped: 0,
    clusters_left_to_adapter: 0,
    paced_ms: 0,
  };
  let exitCode: number = EXIT_CODES.success;
  try {
    await runTaskClusters(settings, runner, counts, logger);
    counts.paced_ms = pacer.pacedMs;
    logger.info(
      `Batch task ${task.task_index + 1} of ${task.task_count} done: ${counts.clusters_applied} applied, ${counts.clusters_failed} failed, ${counts.clusters_skipped} skipped (${counts.clusters_left_to_adapter} left to the adapter) of ${counts.clusters_listed}; ${(counts.paced_ms / 1000).toFixed(1)} s waited for Connect Gateway`,
      { event: 'batch-finished', ...task, ...counts },
    );
  } catch (error) {
    // The list or a status read failed past its retries: Cloud Run retries the task (max_retries),
    // and the clusters it had already run are idempotent (their claims are held by this execution).
    logger.error(`Batch task stopped: ${error instanceof Error ? error.message : String(error)}`, {
      event: 'batch-failed',
      ...task,
      ...counts,
      paced_ms: pacer.pacedMs,
    });
    exitCode = EXIT_CODES.transient;
  } finally {
    await runner.close();
  }
  await logger.close();
  return exitCode;
}

type BatchSettings = z.infer<typeof batchEnvSchema>;

/** Lists this task's pages and runs every chosen cluster, BATCH_CONCURRENCY at once; counts as it goes. */
async function runTaskClusters(
  settings: BatchSettings,
  runner: ClusterRunner,
  counts: BatchCounts,
  logger: Logger,
): Promise<void> {
  const hyperfleetConfig = toHyperFleetApiConfig(settings);
  const hyperfleet = new HyperFleetClient(hyperfleetConfig, {
    auth: authProviderFor(hyperfleetConfig.auth),
    logger,
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
  for await (const clusters of taskPages(hyperfleet, settings)) {
    counts.clusters_listed += clusters.length;
    await eachLimited(clusters, settings.BATCH_CONCURRENCY, async (cluster) => {
      const statuses = await hyperfleet.listStatuses(cluster.id);
      const choice = chooseForBatch(cluster, statuses, context);
      if (choice.kind === 'skip') {
        counts.clusters_skipped++;
        if (choice.reason === 'adapter') counts.clusters_left_to_adapter++;
        logger.debug(`Cluster ${cluster.id} skipped: ${choice.why}`, {
          cluster_id: cluster.id,
          decision: 'batch-skip',
        });
        return;
      }
      const result = await runner.run(choice.request);
      if (result.outcome === 'failed') counts.clusters_failed++;
      else counts.clusters_applied++;
    });
  }
}

/** This task's pages of the cluster list: index+1, index+1+count, ... until past the end. */
async function* taskPages(
  api: HyperFleetClient,
  settings: { CLOUD_RUN_TASK_INDEX: number; CLOUD_RUN_TASK_COUNT: number; BATCH_PAGE_SIZE: number },
): AsyncGenerator<Cluster[]> {
  const size = settings.BATCH_PAGE_SIZE;
  for (let page = settings.CLOUD_RUN_TASK_INDEX + 1; ; page += settings.CLOUD_RUN_TASK_COUNT) {
    const list = await api.listClusters({ page, size });
    if (list.items.length > 0) yield list.items;
    if (list.items.length === 0 || page * size >= list.total) return;
  }
}

/** Runs `work` on every item, at most `limit` at once; rejects with the first failure. */
async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
