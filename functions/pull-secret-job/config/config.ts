import {
  layoutOf,
  writeNamespace,
  type NamespaceLayout,
} from '../../../shared/pull-secret/namespace-layout';
import type { GoogleEndpoint } from '../../../shared/gcp/client-options';
import { parseEnv, type Env } from '../../../shared/config/parse-env';
import { toHyperFleetApiConfig, type HyperFleetApiConfig } from '../../../shared/hyperfleet/config';
import type { LOG_FORMATS, LOG_LEVELS } from '../../../shared/logging/logger';
import { toTracingConfig, type TracingConfig } from '../../../shared/tracing/config';
import { parseTraceparent } from '../../../shared/tracing/traceparent';
import { kubernetesSecretName, secretManagerSecretId } from '../../../shared/pull-secret/names';
import type { KubernetesAccess } from '../kubernetes/kubernetes-access';
import type { Replication } from './replication';
import { jobEnvSchema } from './job-env';
import { configuredClusters } from './management-cluster-config';
import type { ManagementClusterSet } from './management-clusters';

export { jobEnvSchema };

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
  /** Per-cluster replication: where the spec asks, which regions may be asked (replication/). */
  readonly replicationRequests: { readonly specPath: string; readonly allowed: readonly string[] };
  /** ORG_POLICY_EMULATOR_HOST: the Org Policy API's emulator, when not Google's. */
  readonly orgPolicyEmulatorHost?: string;
  /** Keep the newest N versions of the secret (SECRET_VERSION_RETENTION); absent keeps all. */
  readonly retention?: number;
  readonly onDelete: 'delete' | 'retain';
  /** TOMBSTONE_TTL in seconds: how long a delete's tombstone stays (secret-manager/delete-pull-secret.ts). */
  readonly tombstoneTtlSeconds: number;
  /** Absent for deletions, which need no pull secret. */
  readonly pullSecretSource?: PullSecretSource;
  /** COPY_PLATFORM_DEFAULT_TO_TENANT: the platform default is copied to the tenant project too. */
  readonly copyPlatformDefaultToTenant?: true;
  readonly additionalSpecPath: string;
  readonly hyperfleet?: HyperFleetApiConfig;
  readonly attempt?: number;
  /** LAUNCH_ID: the adapter's launch (its Cloud Tasks task id), for the start report. */
  readonly launchId?: string;
  readonly kubernetes?: {
    /** The operator's namespace layout: where a pull secret may be written and removed. */
    readonly layout: NamespaceLayout;
    readonly namespace: string;
    readonly secretName: string;
    /** The management cluster this execution targets; may be unknown (the run checks, see run/run-pull-secret-job.ts). */
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
  /** Where Secret Manager is called, when not Google's default endpoint. */
  readonly secretManager: GoogleEndpoint;
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
  const layout = layoutOf(e);
  const kubernetes =
    e.SKIP_KUBERNETES || !e.MANAGEMENT_NAMESPACE || !cluster
      ? undefined
      : {
          layout,
          namespace: writeNamespace(layout, e.CLUSTER_ID, e.MANAGEMENT_NAMESPACE),
          secretName: kubernetesSecretName(e.CLUSTER_ID),
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
    replicationRequests: {
      specPath: e.REPLICATION_LOCATIONS_SPEC_PATH,
      allowed: e.ALLOWED_REPLICATION_LOCATIONS ?? [],
    },
    ...(e.ORG_POLICY_EMULATOR_HOST ? { orgPolicyEmulatorHost: e.ORG_POLICY_EMULATOR_HOST } : {}),
    ...(e.SECRET_VERSION_RETENTION > 0 ? { retention: e.SECRET_VERSION_RETENTION } : {}),
    onDelete: e.ON_DELETE,
    tombstoneTtlSeconds: Math.ceil(e.TOMBSTONE_TTL / 1000),
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
    ...(e.LAUNCH_ID ? { launchId: e.LAUNCH_ID } : {}),
    ...(kubernetes ? { kubernetes } : {}),
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    apiTimeoutMs: e.GCP_API_TIMEOUT,
    retry: { attempts: e.RETRY_ATTEMPTS, baseDelayMs: e.RETRY_BASE_DELAY, maxDelayMs: 30_000 },
    secretManager: {
      ...(e.SECRET_MANAGER_EMULATOR_HOST ? { emulatorHost: e.SECRET_MANAGER_EMULATOR_HOST } : {}),
      ...(e.SECRET_MANAGER_API_ENDPOINT ? { apiEndpoint: e.SECRET_MANAGER_API_ENDPOINT } : {}),
    },
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
