import * as z from 'zod';
import { secretVersionNameSchema } from '../../../shared/gcp/secret-manager-names';
import {
  booleanFlag,
  duration,
  parseDurationMs,
  positiveIntWithDefault,
} from '../../../shared/config/durations';
import { apiEndpoint, hostPort } from '../../../shared/config/gcp-names';
import type { GoogleEndpoint } from '../../../shared/gcp/client-options';
import { parseEnv, type Env } from '../../../shared/config/parse-env';
import { ConfigError } from '../../../shared/errors';
import {
  hyperFleetApiEnvShape,
  toHyperFleetApiConfig,
  type HyperFleetApiConfig,
} from '../../../shared/hyperfleet/config';
import {
  LOG_FORMATS,
  LOG_LEVELS,
  type LogFormat,
  type LogLevel,
} from '../../../shared/logging/logger';
import type { RetryBoundSettings } from '../../../shared/events/retry-bound';
import { OBJECT_PATH } from '../../../shared/object-path';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import { loadPreconditions } from './preconditions-source';
import {
  toTracingConfig,
  tracingEnvShape,
  type TracingConfig,
} from '../../../shared/tracing/config';
import type { DecisionSettings } from '../decision/decision';
import { DEFAULT_DRIFT_REPORTED_CONDITION } from '../decision/drift-condition';
import {
  layoutEnvProblems,
  layoutOf,
  namespaceLayoutEnvShape,
  type NamespaceLayout,
} from '../../../shared/pull-secret/namespace-layout';
import { defaultResyncSpreadMs } from '../decision/resync-spread';
import { type PreconditionSpec } from '../decision/preconditions';

const objectPath = (fallback: string) =>
  z
    .string()
    .regex(OBJECT_PATH, 'must be a dot path such as spec.pullSecret.data')
    .default(fallback);

/** Environment of the adapter function; keys are the variable names (exported for the Terraform check). */
export const adapterEnvSchema = z.object({
  ...hyperFleetApiEnvShape,
  PULL_SECRET_JOB: z
    .string()
    .regex(
      /^projects\/[^/]+\/locations\/[^/]+\/jobs\/[^/]+$/,
      'must be the job resource name projects/PROJECT/locations/REGION/jobs/JOB',
    ),
  CLOUD_RUN_EMULATOR_HOST: hostPort.optional(),
  // Cloud Run's gRPC API (GetExecution, tasks) over TLS with the adapter's credentials, when not
  // Google's endpoint; CLOUD_RUN_API_ENDPOINT below is the REST root the launch tasks call.
  CLOUD_RUN_GRPC_ENDPOINT: apiEndpoint.optional(),
  // The launch queue (launch-queue/): Cloud Tasks dispatches RunJob as the launcher identity.
  LAUNCH_QUEUE: z
    .string()
    .regex(
      /^projects\/[^/]+\/locations\/[^/]+\/queues\/[A-Za-z0-9-]{1,100}$/,
      'must be the queue resource name projects/PROJECT/locations/REGION/queues/QUEUE',
    ),
  // Each management cluster's launches in its own queue, LAUNCH_QUEUE-NAME (pausable alone):
  // shared/launch-queue/management-cluster-queues.ts. Terraform creates the queues and sets it.
  LAUNCH_QUEUE_PER_MANAGEMENT_CLUSTER: booleanFlag(false),
  LAUNCHER_SERVICE_ACCOUNT: z
    .string()
    .regex(
      /^[^@\s]+@[^@\s]+\.iam\.gserviceaccount\.com$/,
      'must be the launcher service account email NAME@PROJECT.iam.gserviceaccount.com',
    ),
  CLOUD_TASKS_EMULATOR_HOST: hostPort.optional(),
  // Secret Manager, only to list the default pull secret's enabled versions when one is disabled.
  SECRET_MANAGER_EMULATOR_HOST: hostPort.optional(),
  SECRET_MANAGER_API_ENDPOINT: apiEndpoint.optional(),
  CLOUD_TASKS_API_ENDPOINT: apiEndpoint.optional(),
  // The Cloud Run Admin API the queue's tasks call; only the local stack points it elsewhere.
  CLOUD_RUN_API_ENDPOINT: z
    .string()
    .regex(/^https?:\/\/[^/\s]+$/, 'must be a URL root such as https://run.googleapis.com')
    .default('https://run.googleapis.com'),
  LAUNCH_CHECK_AFTER: duration('30s'),
  LAUNCH_START_GRACE: duration('5m'),
  CLOUD_RUN_API_TIMEOUT: duration('30s'),
  RESYNC_INTERVAL: duration('24h'),
  EXECUTION_TIMEOUT: duration('25m'),
  EXECUTION_CHECK_AFTER: duration('3m'),
  RETRY_BACKOFF_BASE: duration('30s'),
  RETRY_BACKOFF_MAX: duration('30m'),
  PERMANENT_FAILURE_RETRY_INTERVAL: duration('1h'),
  STATUS_HEARTBEAT_INTERVAL: duration('5m'),
  // Sentinel re-sends a cluster's event every few seconds until it is reconciled: an old one is worthless.
  EVENT_MAX_AGE: duration('30m'),
  EVENT_MAX_FAILURES: positiveIntWithDefault(10),
  // Eventarc gives a delivery 10 s (shared/events/delivery-deadline.ts): the work of one delivery
  // ends within this, leaving time to answer and flush spans.
  DELIVERY_BUDGET: duration('8s'),
  // Drift and resync (issue 31): a reported drift is repaired at once, so the resync is a rare backstop.
  RESYNC_SPREAD: z.string().optional(),
  DRIFT_REPORTED_CONDITION: z.string().min(1).default(DEFAULT_DRIFT_REPORTED_CONDITION),
  DRIFT_REPAIR_BACKOFF: duration('5m'),
  PRECONDITIONS_FILE: z.string().optional(),
  PRECONDITIONS: z.string().optional(),
  PULL_SECRET_SPEC_PATH: objectPath('spec.pullSecret.data'),
  PULL_SECRET_ADDITIONAL_SPEC_PATH: objectPath('spec.pullSecret.additional'),
  DEFAULT_PULL_SECRET_VERSION: secretVersionNameSchema.optional(),
  // A batch's tasks (rotation, resync on demand, the daily resync) take this many clusters each:
  // ~500 keeps a task to a few minutes and 100,000 clusters to 200 tasks (docs/performance.md).
  BATCH_CLUSTERS_PER_TASK: positiveIntWithDefault(500).refine(
    (n) => n >= 100,
    'must be at least 100: a batch task takes whole pages of the cluster list (100 clusters each)',
  ),
  // A batch execution's task timeout (its RunJob override `timeout`; the job's own stays a
  // per-cluster run's): 500 clusters through Connect Gateway at 100,000 take ~90 min.
  BATCH_TASK_TIMEOUT: duration('2h').refine(
    (ms) => ms >= 60_000 && ms <= 168 * 3_600_000,
    "must be between 1m and 168h (Cloud Run's longest task timeout)",
  ),
  ...namespaceLayoutEnvShape,
  LOG_LEVEL: z
    .enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` })
    .default('info'),
  LOG_FORMAT: z.enum(LOG_FORMATS, { message: 'must be json or text' }).default('json'),
  GOOGLE_CLOUD_PROJECT: z.string().optional(),
  ...tracingEnvShape,
});

/** The adapter's OTEL_SERVICE_NAME unless set. */
export const ADAPTER_SERVICE_NAME = 'pullsecret-adapter';

/** Validated adapter configuration. */
export interface AdapterConfig {
  readonly hyperfleet: HyperFleetApiConfig;
  /** BATCH_CLUSTERS_PER_TASK: clusters per task of a batch execution. */
  readonly batchClustersPerTask: number;
  /** Where Secret Manager is called (the default's versions), when not Google's endpoint. */
  readonly secretManager: GoogleEndpoint;
  /** BATCH_TASK_TIMEOUT: a batch execution's task timeout (its RunJob override). */
  readonly batchTaskTimeoutMs: number;
  readonly cloudRunJob: string;
  /** Where Cloud Run's gRPC API is called, when not Google's default endpoint. */
  readonly cloudRun: GoogleEndpoint;
  readonly cloudRunTimeoutMs: number;
  /** Cloud Run reads (GetExecution) are retried a little in-process; Pub/Sub does the rest. */
  readonly cloudRunRetry: RetryPolicy;
  /** The launch queue and what its tasks call, as whom. */
  readonly launchQueue: {
    readonly name: string;
    /** LAUNCH_QUEUE_PER_MANAGEMENT_CLUSTER: a placed cluster's launches go to LAUNCH_QUEUE-NAME. */
    readonly perManagementCluster: boolean;
    readonly launcherServiceAccount: string;
    readonly cloudRunEndpoint: string;
    /** Where Cloud Tasks is called, when not Google's default endpoint. */
    readonly tasks: GoogleEndpoint;
  };
  readonly decision: DecisionSettings;
  /** How long one delivery may work before it answers (DELIVERY_BUDGET). */
  readonly deliveryBudgetMs: number;
  /** When a failing event stops being retried (Eventarc's subscription has no dead-letter policy). */
  readonly retryBounds: RetryBoundSettings;
  readonly preconditions: readonly PreconditionSpec[];
  /** DRIFT_REPORTED_CONDITION: compiled at start, like the preconditions. */
  readonly driftReportedCondition: string;
  readonly pullSecretSpecPath: string;
  readonly pullSecretAdditionalSpecPath: string;
  readonly defaultPullSecretVersion?: string;
  /** The operator's namespace layout (shared/pull-secret/namespace-layout.ts), the job's too. */
  readonly namespaceLayout: NamespaceLayout;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  readonly projectId?: string;
  readonly tracing: TracingConfig;
}

const CLOUD_RUN_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 500, maxDelayMs: 5000 };

/** Reads and validates the adapter's environment (and its preconditions file); throws ConfigError. */
export function loadAdapterConfig(env: Env): AdapterConfig {
  const e = parseEnv(
    // The same refinement as the job's: the migration variables come together.
    adapterEnvSchema.superRefine((parsed, ctx) =>
      layoutEnvProblems(parsed).forEach((issue) => ctx.addIssue({ code: 'custom', ...issue })),
    ),
    env,
    'adapter function',
  );
  return {
    hyperfleet: toHyperFleetApiConfig(e),
    cloudRunJob: e.PULL_SECRET_JOB,
    cloudRun: {
      ...(e.CLOUD_RUN_EMULATOR_HOST ? { emulatorHost: e.CLOUD_RUN_EMULATOR_HOST } : {}),
      ...(e.CLOUD_RUN_GRPC_ENDPOINT ? { apiEndpoint: e.CLOUD_RUN_GRPC_ENDPOINT } : {}),
    },
    cloudRunTimeoutMs: e.CLOUD_RUN_API_TIMEOUT,
    cloudRunRetry: CLOUD_RUN_RETRY,
    decision: {
      resyncIntervalMs: e.RESYNC_INTERVAL,
      executionTimeoutMs: e.EXECUTION_TIMEOUT,
      retryBackoffBaseMs: e.RETRY_BACKOFF_BASE,
      retryBackoffMaxMs: e.RETRY_BACKOFF_MAX,
      permanentFailureRetryMs: e.PERMANENT_FAILURE_RETRY_INTERVAL,
      heartbeatMs: e.STATUS_HEARTBEAT_INTERVAL,
      executionCheckAfterMs: e.EXECUTION_CHECK_AFTER,
      launchCheckAfterMs: e.LAUNCH_CHECK_AFTER,
      launchStartGraceMs: e.LAUNCH_START_GRACE,
      resyncSpreadMs: resyncSpread(e.RESYNC_SPREAD, e.RESYNC_INTERVAL),
      driftRepairBackoffMs: e.DRIFT_REPAIR_BACKOFF,
    },
    launchQueue: {
      name: e.LAUNCH_QUEUE,
      perManagementCluster: e.LAUNCH_QUEUE_PER_MANAGEMENT_CLUSTER,
      launcherServiceAccount: e.LAUNCHER_SERVICE_ACCOUNT,
      cloudRunEndpoint: e.CLOUD_RUN_API_ENDPOINT,
      tasks: {
        ...(e.CLOUD_TASKS_EMULATOR_HOST ? { emulatorHost: e.CLOUD_TASKS_EMULATOR_HOST } : {}),
        ...(e.CLOUD_TASKS_API_ENDPOINT ? { apiEndpoint: e.CLOUD_TASKS_API_ENDPOINT } : {}),
      },
    },
    deliveryBudgetMs: e.DELIVERY_BUDGET,
    retryBounds: { maxAgeMs: e.EVENT_MAX_AGE, maxFailures: e.EVENT_MAX_FAILURES },
    preconditions: loadPreconditions(e.PRECONDITIONS_FILE, e.PRECONDITIONS),
    driftReportedCondition: e.DRIFT_REPORTED_CONDITION,
    pullSecretSpecPath: e.PULL_SECRET_SPEC_PATH,
    pullSecretAdditionalSpecPath: e.PULL_SECRET_ADDITIONAL_SPEC_PATH,
    ...(e.DEFAULT_PULL_SECRET_VERSION
      ? { defaultPullSecretVersion: e.DEFAULT_PULL_SECRET_VERSION }
      : {}),
    namespaceLayout: layoutOf(e),
    batchClustersPerTask: e.BATCH_CLUSTERS_PER_TASK,
    secretManager: {
      ...(e.SECRET_MANAGER_EMULATOR_HOST ? { emulatorHost: e.SECRET_MANAGER_EMULATOR_HOST } : {}),
      ...(e.SECRET_MANAGER_API_ENDPOINT ? { apiEndpoint: e.SECRET_MANAGER_API_ENDPOINT } : {}),
    },
    batchTaskTimeoutMs: e.BATCH_TASK_TIMEOUT,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    ...(e.GOOGLE_CLOUD_PROJECT ? { projectId: e.GOOGLE_CLOUD_PROJECT } : {}),
    tracing: toTracingConfig(e, ADAPTER_SERVICE_NAME),
  };
}

/** RESYNC_SPREAD: a duration (0 turns the spread off); unset: a quarter of RESYNC_INTERVAL. */
function resyncSpread(text: string | undefined, intervalMs: number): number {
  if (text === undefined) return defaultResyncSpreadMs(intervalMs);
  const ms = parseDurationMs(text);
  if (ms === undefined)
    throw new ConfigError(
      'Invalid adapter function configuration: RESYNC_SPREAD: must be a duration such as 0s, 30m or 6h.',
    );
  return ms;
}
