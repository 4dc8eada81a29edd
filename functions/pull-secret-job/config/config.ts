import * as z from 'zod';
import {
  booleanFlag,
  duration,
  positiveInt,
  positiveIntWithDefault,
} from '../../../shared/config/durations';
import {
  clusterId,
  gcpProjectId,
  hostPort,
  namespaceName,
  objectName,
  secretId,
} from '../../../shared/config/gcp-names';
import { parseEnv, type Env } from '../../../shared/config/parse-env';
import {
  hyperFleetApiEnvShape,
  toHyperFleetApiConfig,
  type HyperFleetApiConfig,
} from '../../../shared/hyperfleet/config';
import { LOG_FORMATS, LOG_LEVELS } from '../../../shared/logging/logger';
import {
  toTracingConfig,
  tracingEnvShape,
  type TracingConfig,
} from '../../../shared/tracing/config';
import { parseTraceparent } from '../../../shared/tracing/traceparent';
import { OBJECT_PATH } from '../../../shared/object-path';
import type { KubernetesAccess } from '../kubernetes/kubernetes-access';
import { configuredClusters, managementClusterProblems } from './management-cluster-config';
import {
  managementClusterName,
  managementClustersJson,
  managementEndpoint,
  pemCertificate,
  type ManagementClusterSet,
} from './management-clusters';
import type { Replication } from '../secret-manager/secret-store';
import { clusterNameLabel, kmsKeyProblem } from './secret-manager-rules';
import { kubernetesSecretName, secretManagerSecretId } from '../../../shared/pull-secret/names';

const replication = z
  .string()
  .default('automatic')
  .transform((text, ctx): { kind: 'automatic' } | { kind: 'user-managed'; locations: string[] } => {
    if (text === 'automatic') return { kind: 'automatic' };
    const match = /^user-managed:([a-z0-9-]+(?:,[a-z0-9-]+)*)$/.exec(text);
    if (match) return { kind: 'user-managed', locations: match[1]!.split(',') };
    ctx.addIssue({
      code: 'custom',
      message:
        'must be "automatic" or "user-managed:LOCATION[,LOCATION...]" (e.g. user-managed:us-east1,us-central1)',
    });
    return z.NEVER;
  });

/** Environment of the pull secret job; keys are the variable names. */
export const jobEnvSchema = z
  .object({
    CLUSTER_ID: clusterId,
    CLUSTER_NAME: clusterNameLabel.optional(),
    GCP_PROJECT_ID: gcpProjectId,
    GENERATION: positiveInt(),
    OPERATION: z.enum(['apply', 'delete'], { message: 'must be apply or delete' }).default('apply'),
    SECRET_NAME: secretId.optional(),
    REPLICATION_POLICY: replication,
    KMS_KEY_NAME: z
      .string()
      .regex(
        /^projects\/[^/]+\/locations\/[^/]+\/keyRings\/[^/]+\/cryptoKeys\/[^/]+$/,
        'must be projects/P/locations/L/keyRings/R/cryptoKeys/K ({location} may stand for the replica location)',
      )
      .optional(),
    SECRET_VERSION_RETENTION: positiveInt(),
    ON_DELETE: z
      .enum(['delete', 'retain'], { message: 'must be delete or retain' })
      .default('delete'),
    PULL_SECRET_DATA: z.string().optional(),
    PULL_SECRET_SOURCE: z
      .enum(['env', 'cluster-spec', 'secret-manager'], {
        message: 'must be env, cluster-spec or secret-manager',
      })
      .optional(),
    PULL_SECRET_SPEC_PATH: z
      .string()
      .regex(OBJECT_PATH, 'must be a dot path such as spec.pullSecret.data')
      .default('spec.pullSecret.data'),
    PULL_SECRET_ADDITIONAL_SPEC_PATH: z
      .string()
      .regex(OBJECT_PATH, 'must be a dot path such as spec.pullSecret.additional')
      .default('spec.pullSecret.additional'),
    PULL_SECRET_SECRET_VERSION: z
      .string()
      .regex(
        /^projects\/[^/]+\/secrets\/[^/]+\/versions\/[^/]+$/,
        'must be projects/P/secrets/S/versions/V',
      )
      .optional(),
    /**
     * Opt-in: also store the platform default (PULL_SECRET_SOURCE=secret-manager) in the tenant
     * project's secret, where the customer can read it. Off: tenant-copy.ts.
     */
    COPY_PLATFORM_DEFAULT_TO_TENANT: booleanFlag(false),
    ...hyperFleetApiEnvShape,
    HYPERFLEET_API_BASE_URL: hyperFleetApiEnvShape.HYPERFLEET_API_BASE_URL.optional(),
    LAUNCH_ATTEMPT: positiveInt(),
    /** The adapter's launch id: how the adapter finds this execution again after a lost answer. */
    LAUNCH_ID: z.string().max(64).optional(),
    MANAGEMENT_NAMESPACE: namespaceName.optional(),
    K8S_SECRET_NAME: objectName.optional(),
    SKIP_KUBERNETES: booleanFlag(false),
    KUBECONFIG: z.string().optional(),
    MANAGEMENT_CLUSTER_ENDPOINT: managementEndpoint.optional(),
    MANAGEMENT_CLUSTER_CA_CERT: pemCertificate.optional(),
    MANAGEMENT_CLUSTERS: managementClustersJson.optional(),
    DEFAULT_MANAGEMENT_CLUSTER: managementClusterName.optional(),
    /** Per execution: the management cluster placement chose (the adapter passes it). */
    MANAGEMENT_CLUSTER: managementClusterName.optional(),
    KUBERNETES_NAMESPACE_WAIT: duration('60s'),
    KUBERNETES_API_TIMEOUT: duration('15s'),
    LOG_LEVEL: z
      .enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` })
      .default('info'),
    LOG_FORMAT: z.enum(LOG_FORMATS, { message: 'must be json or text' }).default('json'),
    GCP_API_TIMEOUT: duration('30s'),
    RETRY_ATTEMPTS: positiveIntWithDefault(4),
    RETRY_BASE_DELAY: duration('1s'),
    SECRET_MANAGER_EMULATOR_HOST: hostPort.optional(),
    CLOUD_RUN_EXECUTION: z.string().optional(),
    RESULTS_TOPIC: z
      .string()
      .regex(
        /^projects\/[a-z][a-z0-9-]{4,28}[a-z0-9]\/topics\/[A-Za-z][\w.~+%-]{2,254}$/,
        'must be a topic name projects/PROJECT/topics/TOPIC',
      )
      .optional(),
    PUBSUB_EMULATOR_HOST: hostPort.optional(),
    /** The platform project the job runs in: where its logs and spans are filed (not GCP_PROJECT_ID). */
    GOOGLE_CLOUD_PROJECT: gcpProjectId.optional(),
    /**
     * Per execution: the adapter's launch span (W3C traceparent), the parent of job.run. Any text
     * is accepted here: a bad one must not fail the execution, it only starts a new trace.
     */
    TRACEPARENT: z.string().optional(),
    TRACESTATE: z.string().optional(),
    ...tracingEnvShape,
  })
  .superRefine((env, ctx) => {
    const pushes = env.MANAGEMENT_NAMESPACE !== undefined && env.SKIP_KUBERNETES !== true;
    if (pushes && !env.MANAGEMENT_CLUSTERS && !env.KUBECONFIG && !env.MANAGEMENT_CLUSTER_ENDPOINT) {
      ctx.addIssue({
        code: 'custom',
        path: ['MANAGEMENT_CLUSTERS'],
        message:
          '(or the single-cluster KUBECONFIG or MANAGEMENT_CLUSTER_ENDPOINT) is required to push the Secret to MANAGEMENT_NAMESPACE (or set SKIP_KUBERNETES=true)',
      });
    }
    managementClusterProblems(env).forEach((issue) => ctx.addIssue({ code: 'custom', ...issue }));
    const source =
      env.PULL_SECRET_SOURCE ?? (env.PULL_SECRET_DATA !== undefined ? 'env' : undefined);
    if (env.OPERATION !== 'delete') {
      if (source === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['PULL_SECRET_SOURCE'],
          message: 'or PULL_SECRET_DATA is required: say where the pull secret comes from',
        });
      if (source === 'env' && env.PULL_SECRET_DATA === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['PULL_SECRET_DATA'],
          message: 'is required when PULL_SECRET_SOURCE=env',
        });
      if (source === 'cluster-spec' && !env.HYPERFLEET_API_BASE_URL)
        ctx.addIssue({
          code: 'custom',
          path: ['HYPERFLEET_API_BASE_URL'],
          message:
            'is required to read the pull secret from the cluster spec (PULL_SECRET_SOURCE=cluster-spec)',
        });
      if (source === 'secret-manager' && !env.PULL_SECRET_SECRET_VERSION)
        ctx.addIssue({
          code: 'custom',
          path: ['PULL_SECRET_SECRET_VERSION'],
          message: 'is required when PULL_SECRET_SOURCE=secret-manager',
        });
    }
    const kmsProblem = env.KMS_KEY_NAME
      ? kmsKeyProblem(env.KMS_KEY_NAME, env.REPLICATION_POLICY)
      : undefined;
    if (kmsProblem) ctx.addIssue({ code: 'custom', path: ['KMS_KEY_NAME'], message: kmsProblem });
  });

/** Where the job reads the pull secret from. */
export type PullSecretSource =
  | { readonly kind: 'env'; readonly data: string }
  | { readonly kind: 'cluster-spec'; readonly specPath: string }
  | { readonly kind: 'secret-manager'; readonly version: string };

/** Validated job configuration. */
export interface JobConfig {
  readonly clusterId: string;
  readonly clusterName?: string;
  readonly projectId: string;
  readonly generation?: number;
  readonly operation: 'apply' | 'delete';
  readonly secretId: string;
  readonly replication: Replication;
  readonly retention?: number;
  readonly onDelete: 'delete' | 'retain';
  /** Absent for deletions, which need no pull secret. */
  readonly pullSecretSource?: PullSecretSource;
  /** COPY_PLATFORM_DEFAULT_TO_TENANT: the platform default is copied to the tenant project too. */
  readonly copyPlatformDefaultToTenant?: true;
  readonly additionalSpecPath: string;
  readonly hyperfleet?: HyperFleetApiConfig;
  readonly attempt?: number;
  readonly kubernetes?: {
    readonly namespace: string;
    readonly secretName: string;
    /** The management cluster this execution targets; may be unknown (the run checks, see run-job.ts). */
    readonly cluster: string;
    /** Every configured management cluster by name: where earlier places may be cleaned up. */
    readonly clusters: ManagementClusterSet;
    /** How to reach `cluster`; undefined when it is not configured. */
    readonly access?: KubernetesAccess;
    readonly namespaceWaitMs: number;
    readonly timeoutMs: number;
  };
  readonly logLevel: (typeof LOG_LEVELS)[number];
  readonly logFormat: (typeof LOG_FORMATS)[number];
  readonly apiTimeoutMs: number;
  readonly retry: { attempts: number; baseDelayMs: number; maxDelayMs: number };
  readonly secretManagerEmulatorHost?: string;
  readonly execution?: string;
  /** Where the result is published for the reporter; unset for direct runs. */
  readonly resultsTopic?: string;
  /** The platform project (GOOGLE_CLOUD_PROJECT): where logs and spans are filed. */
  readonly platformProjectId?: string;
  readonly tracing: TracingConfig;
  /** The adapter's launch span, when TRACEPARENT is a valid traceparent: job.run continues it. */
  readonly parentTrace?: { readonly traceparent: string; readonly tracestate?: string };
  /** TRACEPARENT was set but is not a traceparent: main.ts warns, and the run starts a new trace. */
  readonly ignoredTraceparent?: true;
}

/** Reads and validates the job's environment; throws ConfigError naming each bad variable. */
export function loadJobConfig(env: Env): JobConfig {
  const e = parseEnv(jobEnvSchema, env, 'pull secret job');
  const kind = e.PULL_SECRET_SOURCE ?? (e.PULL_SECRET_DATA !== undefined ? 'env' : undefined);
  const source: PullSecretSource | undefined =
    e.OPERATION === 'delete' || kind === undefined
      ? undefined
      : kind === 'env'
        ? { kind, data: e.PULL_SECRET_DATA ?? '' }
        : kind === 'cluster-spec'
          ? { kind, specPath: e.PULL_SECRET_SPEC_PATH }
          : { kind, version: e.PULL_SECRET_SECRET_VERSION ?? '' };
  const { clusters, defaultName } = configuredClusters(e);
  const cluster = e.MANAGEMENT_CLUSTER ?? defaultName;
  const kubernetes =
    e.SKIP_KUBERNETES || !e.MANAGEMENT_NAMESPACE || !cluster
      ? undefined
      : {
          namespace: e.MANAGEMENT_NAMESPACE,
          secretName: e.K8S_SECRET_NAME ?? kubernetesSecretName(e.CLUSTER_ID),
          cluster,
          clusters,
          ...(clusters[cluster] ? { access: clusters[cluster] } : {}),
          namespaceWaitMs: e.KUBERNETES_NAMESPACE_WAIT,
          timeoutMs: e.KUBERNETES_API_TIMEOUT,
        };
  return {
    clusterId: e.CLUSTER_ID,
    ...(e.CLUSTER_NAME ? { clusterName: e.CLUSTER_NAME } : {}),
    projectId: e.GCP_PROJECT_ID,
    ...(e.GENERATION ? { generation: e.GENERATION } : {}),
    operation: e.OPERATION,
    secretId: e.SECRET_NAME ?? secretManagerSecretId(e.CLUSTER_ID),
    replication: {
      ...e.REPLICATION_POLICY,
      ...(e.KMS_KEY_NAME ? { kmsKeyName: e.KMS_KEY_NAME } : {}),
    } as Replication,
    ...(e.SECRET_VERSION_RETENTION ? { retention: e.SECRET_VERSION_RETENTION } : {}),
    onDelete: e.ON_DELETE,
    ...(source ? { pullSecretSource: source } : {}),
    ...(e.COPY_PLATFORM_DEFAULT_TO_TENANT ? { copyPlatformDefaultToTenant: true as const } : {}),
    additionalSpecPath: e.PULL_SECRET_ADDITIONAL_SPEC_PATH,
    ...(e.HYPERFLEET_API_BASE_URL
      ? {
          hyperfleet: toHyperFleetApiConfig({
            ...e,
            HYPERFLEET_API_BASE_URL: e.HYPERFLEET_API_BASE_URL,
          }),
        }
      : {}),
    ...(e.LAUNCH_ATTEMPT ? { attempt: e.LAUNCH_ATTEMPT } : {}),
    ...(kubernetes ? { kubernetes } : {}),
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    apiTimeoutMs: e.GCP_API_TIMEOUT,
    retry: { attempts: e.RETRY_ATTEMPTS, baseDelayMs: e.RETRY_BASE_DELAY, maxDelayMs: 30_000 },
    ...(e.SECRET_MANAGER_EMULATOR_HOST
      ? { secretManagerEmulatorHost: e.SECRET_MANAGER_EMULATOR_HOST }
      : {}),
    ...(e.CLOUD_RUN_EXECUTION ? { execution: e.CLOUD_RUN_EXECUTION } : {}),
    ...(e.RESULTS_TOPIC ? { resultsTopic: e.RESULTS_TOPIC } : {}),
    ...(e.GOOGLE_CLOUD_PROJECT ? { platformProjectId: e.GOOGLE_CLOUD_PROJECT } : {}),
    tracing: toTracingConfig(e, 'pullsecret-job'),
    ...parentTraceOf(e.TRACEPARENT, e.TRACESTATE),
  };
}

/** TRACEPARENT/TRACESTATE as the run's parent; an invalid traceparent is flagged and ignored. */
function parentTraceOf(
  traceparent: string | undefined,
  tracestate: string | undefined,
): Pick<JobConfig, 'parentTrace' | 'ignoredTraceparent'> {
  if (traceparent === undefined || traceparent.trim() === '') return {};
  if (!parseTraceparent(traceparent)) return { ignoredTraceparent: true };
  return {
    parentTrace: {
      traceparent: traceparent.trim(),
      ...(tracestate?.trim() ? { tracestate: tracestate.trim() } : {}),
    },
  };
}
