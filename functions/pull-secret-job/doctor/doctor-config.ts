import { namespaceLayoutEnvShape, namespaceOf } from '../../../shared/pull-secret/namespace-layout';
import * as z from 'zod';
import { secretVersionNameSchema } from '../../../shared/gcp/secret-manager-names';
import { duration } from '../../../shared/config/durations';
import { apiEndpoint, gcpProjectId, hostPort } from '../../../shared/config/gcp-names';
import { parseEnv, type Env } from '../../../shared/config/parse-env';
import {
  hyperFleetApiEnvShape,
  toHyperFleetApiConfig,
  type HyperFleetApiConfig,
} from '../../../shared/hyperfleet/config';
import {
  clusterSourceCheck,
  configuredClusters,
  managementClusterProblems,
} from '../config/management-cluster-config';
import { managementClustersFile } from '../config/management-clusters-file';
import {
  managementClusterName,
  managementClustersJson,
  managementEndpoint,
  pemCertificate,
  type ManagementClusterSet,
} from '../config/management-clusters';

const topicName = z
  .string()
  .regex(
    /^(projects\/[a-z][a-z0-9-]{4,28}[a-z0-9]\/topics\/)?[A-Za-z][\w.~+%-]{2,254}$/,
    'must be a topic id or projects/PROJECT/topics/TOPIC',
  );

/**
 * The job's environment as the doctor reads it: the same variables (it runs as an execution of the
 * job), minus the per-execution ones, plus where the APIs only the doctor reads are emulated.
 */
export const doctorEnvSchema = z
  .object({
    ...hyperFleetApiEnvShape,
    HYPERFLEET_API_BASE_URL: hyperFleetApiEnvShape.HYPERFLEET_API_BASE_URL.optional(),
    KUBECONFIG: z.string().optional(),
    MANAGEMENT_CLUSTER_ENDPOINT: managementEndpoint.optional(),
    MANAGEMENT_CLUSTER_CA_CERT: pemCertificate.optional(),
    MANAGEMENT_CLUSTERS: managementClustersJson.optional(),
    MANAGEMENT_CLUSTERS_FILE: managementClustersFile.optional(),
    DEFAULT_MANAGEMENT_CLUSTER: managementClusterName.optional(),
    DEFAULT_PULL_SECRET_VERSION: secretVersionNameSchema.optional(),
    RESULTS_TOPIC: topicName.optional(),
    SENTINEL_TOPIC: topicName.optional(),
    GOOGLE_CLOUD_PROJECT: gcpProjectId.optional(),
    CLOUD_RUN_JOB: z.string().optional(),
    KUBERNETES_API_TIMEOUT: duration('15s'),
    GCP_API_TIMEOUT: duration('30s'),
    SECRET_MANAGER_EMULATOR_HOST: hostPort.optional(),
    SECRET_MANAGER_API_ENDPOINT: apiEndpoint.optional(),
    PUBSUB_EMULATOR_HOST: hostPort.optional(),
    /** Eventarc's REST API (GetTrigger) at host:port, in cleartext: the local stack's emulator. */
    EVENTARC_EMULATOR_HOST: hostPort.optional(),
    /** Resource Manager's REST API (projects.testIamPermissions) at host:port: the local stack's. */
    RESOURCE_MANAGER_EMULATOR_HOST: hostPort.optional(),
    /** The job's namespace layout: where its Secret rights are checked unless --namespace says. */
    MANAGEMENT_NAMESPACE_TEMPLATE: namespaceLayoutEnvShape.MANAGEMENT_NAMESPACE_TEMPLATE,
  })
  .superRefine((env, ctx) => {
    managementClusterProblems(env).forEach((issue) => ctx.addIssue({ code: 'custom', ...issue }));
  })
  .check(clusterSourceCheck);

/** What the doctor knows from the environment. */
export interface DoctorConfig {
  /** Unset: the HyperFleet check fails, naming the variable. */
  readonly hyperfleet?: HyperFleetApiConfig;
  readonly managementClusters: ManagementClusterSet;
  readonly defaultManagementCluster?: string;
  readonly defaultPullSecretVersion?: string;
  readonly resultsTopic?: string;
  readonly sentinelTopic?: string;
  /** GOOGLE_CLOUD_PROJECT: the platform project the job runs in. */
  readonly platformProject?: string;
  readonly cloudRunJob?: string;
  readonly kubernetesTimeoutMs: number;
  readonly gcpTimeoutMs: number;
  /**
   * Where the job's Secret rights are checked by default: the namespace the layout gives a probe
   * cluster id (clusters-hyperfleet-doctor, or the shared namespace).
   */
  readonly probeNamespace: string;
  /** Where each Google API is served, when not Google's own endpoint (local emulators). */
  readonly emulators: {
    readonly secretManager?: string;
    /** Secret Manager over TLS with the job's credentials (a regional endpoint; the local stack). */
    readonly secretManagerApiEndpoint?: string;
    readonly pubsub?: string;
    readonly eventarc?: string;
    readonly resourceManager?: string;
  };
}

/** Reads the job's environment for the doctor; throws ConfigError naming each bad variable. */
export function loadDoctorConfig(env: Env): DoctorConfig {
  const e = parseEnv(doctorEnvSchema, env, 'pull-secret doctor');
  const { clusters, defaultName } = configuredClusters(e);
  return {
    ...(e.HYPERFLEET_API_BASE_URL
      ? {
          hyperfleet: toHyperFleetApiConfig({
            ...e,
            HYPERFLEET_API_BASE_URL: e.HYPERFLEET_API_BASE_URL,
          }),
        }
      : {}),
    managementClusters: clusters,
    ...(defaultName ? { defaultManagementCluster: defaultName } : {}),
    ...(e.DEFAULT_PULL_SECRET_VERSION
      ? { defaultPullSecretVersion: e.DEFAULT_PULL_SECRET_VERSION }
      : {}),
    ...(e.RESULTS_TOPIC ? { resultsTopic: e.RESULTS_TOPIC } : {}),
    ...(e.SENTINEL_TOPIC ? { sentinelTopic: e.SENTINEL_TOPIC } : {}),
    ...(e.GOOGLE_CLOUD_PROJECT ? { platformProject: e.GOOGLE_CLOUD_PROJECT } : {}),
    ...(e.CLOUD_RUN_JOB ? { cloudRunJob: e.CLOUD_RUN_JOB } : {}),
    kubernetesTimeoutMs: e.KUBERNETES_API_TIMEOUT,
    gcpTimeoutMs: e.GCP_API_TIMEOUT,
    probeNamespace: namespaceOf(e.MANAGEMENT_NAMESPACE_TEMPLATE, 'hyperfleet-doctor'),
    emulators: {
      ...(e.SECRET_MANAGER_EMULATOR_HOST ? { secretManager: e.SECRET_MANAGER_EMULATOR_HOST } : {}),
      ...(e.SECRET_MANAGER_API_ENDPOINT
        ? { secretManagerApiEndpoint: e.SECRET_MANAGER_API_ENDPOINT }
        : {}),
      ...(e.PUBSUB_EMULATOR_HOST ? { pubsub: e.PUBSUB_EMULATOR_HOST } : {}),
      ...(e.EVENTARC_EMULATOR_HOST ? { eventarc: e.EVENTARC_EMULATOR_HOST } : {}),
      ...(e.RESOURCE_MANAGER_EMULATOR_HOST
        ? { resourceManager: e.RESOURCE_MANAGER_EMULATOR_HOST }
        : {}),
    },
  };
}

/** A topic id or full name as `projects/P/topics/T` (an id needs the platform project). */
export function fullTopicName(topic: string, project: string | undefined): string | undefined {
  if (topic.startsWith('projects/')) return topic;
  return project ? `projects/${project}/topics/${topic}` : undefined;
}
