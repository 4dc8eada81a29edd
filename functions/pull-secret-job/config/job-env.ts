import {
  layoutEnvProblems,
  namespaceLayoutEnvShape,
} from '../../../shared/pull-secret/namespace-layout';
import * as z from 'zod';
import { secretVersionNameSchema } from '../../../shared/gcp/secret-manager-names';
import {
  booleanFlag,
  duration,
  positiveInt,
  positiveIntWithDefault,
} from '../../../shared/config/durations';
import {
  clusterId,
  gcpProjectId,
  apiEndpoint,
  hostPort,
  namespaceName,
  secretId,
} from '../../../shared/config/gcp-names';
import { hyperFleetApiEnvShape } from '../../../shared/hyperfleet/config';
import { LOG_FORMATS, LOG_LEVELS } from '../../../shared/logging/logger';
import { tracingEnvShape } from '../../../shared/tracing/config';
import { OBJECT_PATH } from '../../../shared/object-path';
import { BATCH_REASONS, batchSelectorSchema } from '../../../shared/batch/batch-request';
import { connectGatewayQuotaVariable } from '../batch/connect-gateway-pacing';
import { clusterSourceCheck, managementClusterProblems } from './management-cluster-config';
import { managementClustersFile } from './management-clusters-file';
import {
  managementClusterName,
  managementClustersJson,
  managementEndpoint,
  pemCertificate,
} from './management-clusters';
import { clusterNameLabel, kmsKeyProblem } from './secret-manager-rules';
import { allowedReplicationLocations, fleetKeyServesAllowed } from './replication-env';

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
    // Default 1: the cluster spec is the source of truth, so an older version has no reader, and a
    // rotated credential should not outlive its rotation; each kept version is billed monthly
    // (docs/configuration.md, "Secret Manager versions"). 0 keeps every version.
    // Per-cluster replication (config/replication-env.ts): where the spec asks, which regions the
    // operator allows (none: no cluster may ask), where the tenant's location policy is read.
    REPLICATION_LOCATIONS_SPEC_PATH: z
      .string()
      .regex(
        OBJECT_PATH,
        'must be a dot path such as spec.platform.gcp.secretReplication.locations',
      )
      .default('spec.platform.gcp.secretReplication.locations'),
    ALLOWED_REPLICATION_LOCATIONS: allowedReplicationLocations,
    ORG_POLICY_EMULATOR_HOST: hostPort.optional(),
    SECRET_VERSION_RETENTION: z
      .string()
      .regex(/^\d+$/, 'must be a whole number (0 keeps every version)')
      .transform(Number)
      .refine(Number.isSafeInteger, 'must be a whole number (0 keeps every version)')
      .default(1),
    ON_DELETE: z
      .enum(['delete', 'retain'], { message: 'must be delete or retain' })
      .default('delete'),
    // How long a delete's tombstone stays (secret-manager/delete-pull-secret.ts): it must outlast
    // every apply that passed its cluster check before the delete, so the execution's whole budget
    // (task timeout x attempts; Terraform sets it from job.timeout_seconds and job.max_retries).
    // 25h by default: Cloud Run's longest task (24 h) and an hour for calls still in flight.
    // Secret Manager takes 60 s to 100 years.
    TOMBSTONE_TTL: duration('25h').refine(
      (ms) => ms >= 60_000 && ms <= 100 * 365 * 24 * 3_600_000,
      "must be between 60s and 100 years (Secret Manager's limits on a secret's expiration)",
    ),
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
    PULL_SECRET_SECRET_VERSION: secretVersionNameSchema.optional(),
    /**
     * Opt-in: also store the platform default (PULL_SECRET_SOURCE=secret-manager) in the tenant
     * project's secret, where the customer can read it. Off: tenant-copy.ts.
     */
    COPY_PLATFORM_DEFAULT_TO_TENANT: booleanFlag(false),
    ...hyperFleetApiEnvShape,
    HYPERFLEET_API_BASE_URL: hyperFleetApiEnvShape.HYPERFLEET_API_BASE_URL.optional(),
    LAUNCH_ATTEMPT: positiveInt(),
    /**
     * A batch execution's task (batch/run-batch.ts reads them, the adapter sets them on the one
     * execution of a rotation or resync): which clusters, and why. Absent: a run of one cluster.
     */
    BATCH_SELECTOR: batchSelectorSchema.optional(),
    BATCH_REASON: z.enum(BATCH_REASONS).optional(),
    /**
     * A batch task leaves the clusters of a management cluster whose own launch queue
     * (LAUNCH_QUEUE-NAME) is paused (batch/held-management-clusters.ts): Terraform sets both.
     */
    LAUNCH_QUEUE: z
      .string()
      .regex(/^projects\/[^/]+\/locations\/[^/]+\/queues\/[A-Za-z0-9-]{1,100}$/)
      .optional(),
    LAUNCH_QUEUE_PER_MANAGEMENT_CLUSTER: booleanFlag(false),
    CLOUD_TASKS_API_ENDPOINT: apiEndpoint.optional(),
    CLOUD_TASKS_EMULATOR_HOST: hostPort.optional(),
    /** A batch task's pacing of Connect Gateway (batch/connect-gateway-pacing.ts). */
    CONNECT_GATEWAY_REQUESTS_PER_MINUTE: connectGatewayQuotaVariable,
    /**
     * The adapter's launch id: its Cloud Tasks task's id (HASH8-CLUSTERID-gGEN-OP-aATTEMPT, up to
     * about 100 characters), echoed in the job's start report.
     */
    LAUNCH_ID: z.string().min(1).max(200).optional(),
    /** Per execution: the namespace the adapter decided; it must be the layout's (below). */
    MANAGEMENT_NAMESPACE: namespaceName.optional(),
    /** The operator's namespace layout, the adapter's own (shared/pull-secret/namespace-layout.ts). */
    ...namespaceLayoutEnvShape,
    SKIP_KUBERNETES: booleanFlag(false),
    KUBECONFIG: z.string().optional(),
    MANAGEMENT_CLUSTER_ENDPOINT: managementEndpoint.optional(),
    MANAGEMENT_CLUSTER_CA_CERT: pemCertificate.optional(),
    MANAGEMENT_CLUSTERS: managementClustersJson.optional(),
    /** The same list as a mounted file, for fleets it does not fit in a variable (32 KiB). */
    MANAGEMENT_CLUSTERS_FILE: managementClustersFile.optional(),
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
    SECRET_MANAGER_API_ENDPOINT: apiEndpoint.optional(),
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
    const listed = env.MANAGEMENT_CLUSTERS ?? env.MANAGEMENT_CLUSTERS_FILE;
    if (pushes && !listed && !env.KUBECONFIG && !env.MANAGEMENT_CLUSTER_ENDPOINT) {
      ctx.addIssue({
        code: 'custom',
        path: ['MANAGEMENT_CLUSTERS'],
        message:
          '(or MANAGEMENT_CLUSTERS_FILE, or the single-cluster KUBECONFIG or MANAGEMENT_CLUSTER_ENDPOINT) is required to push the Secret to MANAGEMENT_NAMESPACE (or set SKIP_KUBERNETES=true)',
      });
    }
    managementClusterProblems(env).forEach((issue) => ctx.addIssue({ code: 'custom', ...issue }));
    layoutEnvProblems(env).forEach((issue) => ctx.addIssue({ code: 'custom', ...issue }));
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
    const unserved = fleetKeyServesAllowed(env.KMS_KEY_NAME, env.ALLOWED_REPLICATION_LOCATIONS);
    if (unserved)
      ctx.addIssue({ code: 'custom', path: ['ALLOWED_REPLICATION_LOCATIONS'], message: unserved });
  })
  .check(clusterSourceCheck);
