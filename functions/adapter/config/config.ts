import * as z from 'zod';
import {
  boundedDuration,
  duration,
  parseDurationMs,
  positiveIntWithDefault,
} from '../../../shared/config/durations';
import { hostPort } from '../../../shared/config/gcp-names';
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
import type { LaunchRateSettings } from '../cloud-run/launch-rate';
import type { DecisionSettings } from '../decision/decision';
import { DEFAULT_DRIFT_REPORTED_CONDITION } from '../decision/drift-condition';
import { namespaceTemplate } from '../decision/namespace-template';
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
  CLOUD_RUN_API_TIMEOUT: duration('30s'),
  RESYNC_INTERVAL: duration('24h'),
  EXECUTION_TIMEOUT: duration('25m'),
  EXECUTION_CHECK_AFTER: duration('3m'),
  RETRY_BACKOFF_BASE: duration('30s'),
  RETRY_BACKOFF_MAX: duration('30m'),
  PERMANENT_FAILURE_RETRY_INTERVAL: duration('1h'),
  STATUS_HEARTBEAT_INTERVAL: duration('5m'),
  // How long a launch intent settles before it is read back (launch-flow.ts): the longest expected
  // gap between two instances' competing intent writes. Capped well under Eventarc's 10 s deadline.
  LAUNCH_SETTLE_INTERVAL: boundedDuration('1s', 5_000),
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
  // The launch rate (cloud-run/launch-rate.ts): the region's RunJob budget a minute (0: none) and
  // how many instances share it (Terraform: the function's max_instance_count), and how long a
  // launch may wait for its token inside a delivery (capped well under Eventarc's 10 s).
  LAUNCH_RATE_PER_MINUTE: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of RunJob calls a minute (0: no launch rate)')
    .default('0')
    .transform(Number),
  LAUNCH_RATE_INSTANCES: positiveIntWithDefault(1),
  LAUNCH_RATE_MAX_WAIT: boundedDuration('2s', 5_000),
  PRECONDITIONS_FILE: z.string().optional(),
  PRECONDITIONS: z.string().optional(),
  PULL_SECRET_SPEC_PATH: objectPath('spec.pullSecret.data'),
  PULL_SECRET_ADDITIONAL_SPEC_PATH: objectPath('spec.pullSecret.additional'),
  DEFAULT_PULL_SECRET_VERSION: z
    .string()
    .regex(
      /^projects\/[^/]+\/secrets\/[^/]+\/versions\/[^/]+$/,
      'must be projects/P/secrets/S/versions/V',
    )
    .optional(),
  MANAGEMENT_NAMESPACE_TEMPLATE: namespaceTemplate,
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
  readonly cloudRunJob: string;
  readonly cloudRunEmulatorHost?: string;
  readonly cloudRunTimeoutMs: number;
  /** RunJob is retried a little in-process (after looking for the execution); Pub/Sub does the rest. */
  readonly cloudRunRetry: RetryPolicy;
  readonly decision: DecisionSettings;
  /** The wait between writing a launch intent and reading it back before launching. */
  readonly launchSettleMs: number;
  /** The region's RunJob budget and its share per instance (LAUNCH_RATE_*). */
  readonly launchRate: LaunchRateSettings & { readonly maxWaitMs: number };
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
  /** The management namespace when placement names none ({id}, {name}). */
  readonly namespaceTemplate: string;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  readonly projectId?: string;
  readonly tracing: TracingConfig;
}

const CLOUD_RUN_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 500, maxDelayMs: 5000 };

/**
 * The longest another instance can still be inside launchOrAdopt for an intent: every RunJob and
 * every search after a failure taking the whole API timeout, plus the waits between attempts.
 * Until then an intent without an execution is waited for, not launched again.
 */
export function launchGraceMs(apiTimeoutMs: number, retry: RetryPolicy): number {
  const calls = retry.attempts * 2; // a RunJob and a ListExecutions per attempt
  return calls * apiTimeoutMs + (retry.attempts - 1) * retry.maxDelayMs;
}

/** Reads and validates the adapter's environment (and its preconditions file); throws ConfigError. */
export function loadAdapterConfig(env: Env): AdapterConfig {
  const e = parseEnv(adapterEnvSchema, env, 'adapter function');
  return {
    hyperfleet: toHyperFleetApiConfig(e),
    cloudRunJob: e.PULL_SECRET_JOB,
    ...(e.CLOUD_RUN_EMULATOR_HOST ? { cloudRunEmulatorHost: e.CLOUD_RUN_EMULATOR_HOST } : {}),
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
      launchGraceMs: launchGraceMs(e.CLOUD_RUN_API_TIMEOUT, CLOUD_RUN_RETRY),
      resyncSpreadMs: resyncSpread(e.RESYNC_SPREAD, e.RESYNC_INTERVAL),
      driftRepairBackoffMs: e.DRIFT_REPAIR_BACKOFF,
    },
    launchSettleMs: e.LAUNCH_SETTLE_INTERVAL,
    launchRate: launchRateSettings(
      e.LAUNCH_RATE_PER_MINUTE,
      e.LAUNCH_RATE_INSTANCES,
      e.LAUNCH_RATE_MAX_WAIT,
    ),
    deliveryBudgetMs: e.DELIVERY_BUDGET,
    retryBounds: { maxAgeMs: e.EVENT_MAX_AGE, maxFailures: e.EVENT_MAX_FAILURES },
    preconditions: loadPreconditions(e.PRECONDITIONS_FILE, e.PRECONDITIONS),
    driftReportedCondition: e.DRIFT_REPORTED_CONDITION,
    pullSecretSpecPath: e.PULL_SECRET_SPEC_PATH,
    pullSecretAdditionalSpecPath: e.PULL_SECRET_ADDITIONAL_SPEC_PATH,
    ...(e.DEFAULT_PULL_SECRET_VERSION
      ? { defaultPullSecretVersion: e.DEFAULT_PULL_SECRET_VERSION }
      : {}),
    namespaceTemplate: e.MANAGEMENT_NAMESPACE_TEMPLATE,
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

/** The launch rate's settings; a share of one launch a minute or less leaves the bucket no refill. */
function launchRateSettings(perMinute: number, instances: number, maxWaitMs: number) {
  if (perMinute > 0 && perMinute <= instances)
    throw new ConfigError(
      `Invalid adapter function configuration: LAUNCH_RATE_PER_MINUTE (${perMinute}) must be more than LAUNCH_RATE_INSTANCES (${instances}): each instance's share must exceed one launch a minute (or set 0 for no launch rate).`,
    );
  return { perMinute, instances, maxWaitMs };
}
