import * as z from 'zod';
import { BATCH_REASONS, batchSelectorSchema } from '../../../shared/batch/batch-request';
import { secretVersionNameSchema } from '../../../shared/gcp/secret-manager-names';
import { hyperFleetApiEnvShape } from '../../../shared/hyperfleet/config';
import { LOG_FORMATS, LOG_LEVELS } from '../../../shared/logging/logger';
import { namespaceLayoutEnvShape } from '../../../shared/pull-secret/namespace-layout';
import { jobEnvSchema } from '../config/job-env';

// A batch task's configuration: the adapter's overrides (BATCH_SELECTOR, BATCH_REASON, the pull
// secret references), Cloud Run's task variables, and what the job definition already carries
// (the same fields as a per-cluster run's, from job-env.ts, so the two cannot disagree).

const positiveInt = (fallback: number, max: number) =>
  z.coerce.number().int().min(1).max(max).default(fallback);
const { shape: job } = jobEnvSchema;

export const batchEnvSchema = z.object({
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
  CONNECT_GATEWAY_REQUESTS_PER_MINUTE: job.CONNECT_GATEWAY_REQUESTS_PER_MINUTE,
  PULL_SECRET_SPEC_PATH: job.PULL_SECRET_SPEC_PATH,
  PULL_SECRET_ADDITIONAL_SPEC_PATH: job.PULL_SECRET_ADDITIONAL_SPEC_PATH,
  /** The default pull secret: the rotation's new version, or the configured one (`latest`). */
  PULL_SECRET_SECRET_VERSION: secretVersionNameSchema.optional(),
  SECRET_MANAGER_EMULATOR_HOST: job.SECRET_MANAGER_EMULATOR_HOST,
  SECRET_MANAGER_API_ENDPOINT: job.SECRET_MANAGER_API_ENDPOINT,
  GCP_API_TIMEOUT: job.GCP_API_TIMEOUT,
  RETRY_ATTEMPTS: job.RETRY_ATTEMPTS,
  RETRY_BASE_DELAY: job.RETRY_BASE_DELAY,
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  LOG_FORMAT: z.enum(LOG_FORMATS).default('json'),
  GOOGLE_CLOUD_PROJECT: z.string().optional(),
  /** The management clusters' own launch queues (LAUNCH_QUEUE-NAME): a paused one's clusters are held. */
  LAUNCH_QUEUE: job.LAUNCH_QUEUE,
  LAUNCH_QUEUE_PER_MANAGEMENT_CLUSTER: job.LAUNCH_QUEUE_PER_MANAGEMENT_CLUSTER,
  CLOUD_TASKS_API_ENDPOINT: job.CLOUD_TASKS_API_ENDPOINT,
  CLOUD_TASKS_EMULATOR_HOST: job.CLOUD_TASKS_EMULATOR_HOST,
  DEFAULT_MANAGEMENT_CLUSTER: z.string().optional(),
  ...namespaceLayoutEnvShape,
  ...hyperFleetApiEnvShape,
});
export type BatchSettings = z.infer<typeof batchEnvSchema>;

/** The variables the batch run reads that a per-cluster run must not see. */
export const BATCH_ONLY = [
  'BATCH_SELECTOR',
  'BATCH_REASON',
  'BATCH_PAGE_SIZE',
  'BATCH_CONCURRENCY',
  'CONNECT_GATEWAY_REQUESTS_PER_MINUTE',
];
