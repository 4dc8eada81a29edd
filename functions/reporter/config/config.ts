import * as z from 'zod';
import { duration, positiveIntWithDefault } from '../../../shared/config/durations';
import type { RetryBoundSettings } from '../../../shared/events/retry-bound';
import { apiEndpoint, hostPort } from '../../../shared/config/gcp-names';
import type { GoogleEndpoint } from '../../../shared/gcp/client-options';
import { parseEnv, type Env } from '../../../shared/config/parse-env';
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
import {
  toTracingConfig,
  tracingEnvShape,
  type TracingConfig,
} from '../../../shared/tracing/config';

export const reporterEnvSchema = z.object({
  ...hyperFleetApiEnvShape,
  PULL_SECRET_JOB: z
    .string()
    .regex(
      /^projects\/[^/]+\/locations\/[^/]+\/jobs\/[^/]+$/,
      'must be the job resource name projects/PROJECT/locations/REGION/jobs/JOB',
    ),
  CLOUD_RUN_EMULATOR_HOST: hostPort.optional(),
  /** Cloud Run's gRPC API over TLS with the reporter's credentials, when not Google's endpoint. */
  CLOUD_RUN_GRPC_ENDPOINT: apiEndpoint.optional(),
  CLOUD_RUN_API_TIMEOUT: duration('30s'),
  SECRET_MANAGER_EMULATOR_HOST: hostPort.optional(),
  SECRET_MANAGER_API_ENDPOINT: apiEndpoint.optional(),
  // Longer than the adapter's: a late report is still applied safely (late-report.ts), and after
  // an hour the adapter's in-flight check (EXECUTION_TIMEOUT 25m) has read the outcome itself.
  EVENT_MAX_AGE: duration('1h'),
  EVENT_MAX_FAILURES: positiveIntWithDefault(10),
  // Eventarc gives a delivery 10 s (shared/events/delivery-deadline.ts): the work of one delivery
  // ends within this, leaving time to answer and flush spans.
  DELIVERY_BUDGET: duration('8s'),
  LOG_LEVEL: z
    .enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` })
    .default('info'),
  LOG_FORMAT: z.enum(LOG_FORMATS, { message: 'must be json or text' }).default('json'),
  GOOGLE_CLOUD_PROJECT: z.string().optional(),
  ...tracingEnvShape,
});

/** Validated reporter configuration. */
export interface ReporterConfig {
  readonly hyperfleet: HyperFleetApiConfig;
  readonly cloudRunJob: string;
  /** Where Cloud Run's gRPC API is called, when not Google's default endpoint. */
  readonly cloudRun: GoogleEndpoint;
  readonly cloudRunTimeoutMs: number;
  /** Where Secret Manager is called, when not Google's default endpoint. */
  readonly secretManager: GoogleEndpoint;
  /** How long one delivery may work before it answers (DELIVERY_BUDGET). */
  readonly deliveryBudgetMs: number;
  /** When a failing message stops being retried (Eventarc's subscription has no dead-letter policy). */
  readonly retryBounds: RetryBoundSettings;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  readonly projectId?: string;
  readonly tracing: TracingConfig;
}

export function loadReporterConfig(env: Env): ReporterConfig {
  const e = parseEnv(reporterEnvSchema, env, 'reporter function');
  return {
    hyperfleet: toHyperFleetApiConfig(e),
    cloudRunJob: e.PULL_SECRET_JOB,
    cloudRun: {
      ...(e.CLOUD_RUN_EMULATOR_HOST ? { emulatorHost: e.CLOUD_RUN_EMULATOR_HOST } : {}),
      ...(e.CLOUD_RUN_GRPC_ENDPOINT ? { apiEndpoint: e.CLOUD_RUN_GRPC_ENDPOINT } : {}),
    },
    cloudRunTimeoutMs: e.CLOUD_RUN_API_TIMEOUT,
    secretManager: {
      ...(e.SECRET_MANAGER_EMULATOR_HOST ? { emulatorHost: e.SECRET_MANAGER_EMULATOR_HOST } : {}),
      ...(e.SECRET_MANAGER_API_ENDPOINT ? { apiEndpoint: e.SECRET_MANAGER_API_ENDPOINT } : {}),
    },
    deliveryBudgetMs: e.DELIVERY_BUDGET,
    retryBounds: { maxAgeMs: e.EVENT_MAX_AGE, maxFailures: e.EVENT_MAX_FAILURES },
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    ...(e.GOOGLE_CLOUD_PROJECT ? { projectId: e.GOOGLE_CLOUD_PROJECT } : {}),
    tracing: toTracingConfig(e, 'pullsecret-reporter'),
  };
}
