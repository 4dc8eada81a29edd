import { googleClientOptions } from '../../../shared/gcp/client-options';
import { SecretManagerServiceClient } from '../../../shared/gcp/secret-manager-client';
import { HyperFleetClient } from '../../../shared/hyperfleet/client';
import { authProviderFor } from '../../../shared/hyperfleet/config';
import type { Logger } from '../../../shared/logging/logger';
import type { SecretRedactor } from '../../../shared/logging/secret-redactor';
import type { JobConfig } from '../config/config';
import { googleAccessToken } from '../kubernetes/google-access-token';
import { createCoreV1Api } from '../kubernetes/kubernetes-access';
import { KubernetesClusterSecrets } from '../kubernetes/kubernetes-cluster-secrets';
import { orgPolicyReader } from '../replication/org-policy-client';
import { GoogleSecretStore } from '../secret-manager/google-secret-store';
import { PubSubResultPublisher } from '../telemetry/pubsub-result-publisher';
import type { ResultPublisher } from '../telemetry/result-publisher';
import type { JobDependencies } from './run-context';
import { customerProjectPermissionFix } from './permission-fix';

/** The Secret Manager client; the caller closes it on every path out. */
export const secretManagerClient = (config: JobConfig) =>
  new SecretManagerServiceClient(googleClientOptions(config.secretManager, config.projectId));

/** The ports runPullSecretJob talks through, built on the real clients. */
export function jobDependencies(
  config: JobConfig,
  client: SecretManagerServiceClient,
  logger: Logger,
  redactor: SecretRedactor,
): JobDependencies {
  // The stores' API-call entries carry the cluster: PREFIX_secret_versions_created counts by it.
  const callLogger = logger.child({ cluster_id: config.clusterId });
  const secretStore = new GoogleSecretStore(client, {
    timeoutMs: config.apiTimeoutMs,
    retry: config.retry,
    logger: callLogger,
    identityHint: "the job's service account",
    permissionFix: (resource) => customerProjectPermissionFix(resource, config.projectId),
  });
  const hyperfleet = config.hyperfleet
    ? new HyperFleetClient(config.hyperfleet, {
        auth: authProviderFor(config.hyperfleet.auth),
        logger,
        userAgent: 'pullsecret-job',
      })
    : undefined;
  return {
    secretStore,
    locationPolicy: orgPolicyReader({
      ...(config.orgPolicyEmulatorHost ? { emulatorHost: config.orgPolicyEmulatorHost } : {}),
      timeoutMs: config.apiTimeoutMs,
      token: googleAccessToken,
    }),
    clusterSecrets: (cluster) =>
      clusterSecrets(config, cluster, callLogger.child({ management_cluster: cluster })),
    logger,
    redactor,
    ...(hyperfleet ? { hyperfleet } : {}),
  };
}

/** A management cluster's Secrets, built on first use (runs without one never load the client). */
async function clusterSecrets(
  config: JobConfig,
  cluster: string,
  logger: Logger,
): Promise<KubernetesClusterSecrets> {
  const kubernetes = config.kubernetes;
  const access = kubernetes?.clusters[cluster];
  if (!kubernetes || !access) throw new Error(`management cluster ${cluster} is not configured`);
  const { api, identity } = await createCoreV1Api(
    access,
    googleAccessToken,
    `management cluster "${cluster}" (MANAGEMENT_CLUSTERS or KUBECONFIG)`,
  );
  return new KubernetesClusterSecrets(api, {
    timeoutMs: kubernetes.timeoutMs,
    retry: config.retry,
    logger,
    identityHint: `${identity} on management cluster ${cluster}`,
  });
}

/**
 * The results topic's publisher, for the start report and the result of one run; the Pub/Sub
 * client loads only here (direct runs never pay). The start report retries briefly (three tries
 * of at most 3 s each): writes wait for it (start-report.ts), and when it fails the adapter
 * re-checks the launch instead. The result retries longer: it is the run's last act.
 */
export async function resultPublisher(
  topic: string,
  options: { logger: Logger; redactor: SecretRedactor; timeoutMs: number },
): Promise<ResultPublisher> {
  const { PubSub } = await import('../../../shared/gcp/lazy/pubsub.js');
  return new PubSubResultPublisher(new PubSub({ projectId: topic.split('/')[1]! }), topic, {
    retry: { attempts: 4, baseDelayMs: 500, maxDelayMs: 5000 },
    started: {
      retry: { attempts: 3, baseDelayMs: 250, maxDelayMs: 1000 },
      timeoutMs: Math.min(options.timeoutMs, 3000),
    },
    ...options,
  });
}
