import { googleClientOptions } from '../../../shared/gcp/client-options';
import { SecretManagerServiceClient } from '../../../shared/gcp/secret-manager-client';
import { HyperFleetClient } from '../../../shared/hyperfleet/client';
import { authProviderFor } from '../../../shared/hyperfleet/config';
import type { JobResult } from '../../../shared/job-result';
import type { Logger } from '../../../shared/logging/logger';
import type { SecretRedactor } from '../../../shared/logging/secret-redactor';
import type { JobConfig } from '../config/config';
import { googleAccessToken } from '../kubernetes/google-access-token';
import { createCoreV1Api } from '../kubernetes/kubernetes-access';
import { KubernetesClusterSecrets } from '../kubernetes/kubernetes-cluster-secrets';
import { GoogleSecretStore } from '../secret-manager/google-secret-store';
import { PubSubResultPublisher } from '../telemetry/pubsub-result-publisher';
import type { JobDependencies } from './job-run';
import { customerProjectPermissionFix } from './permission-fix';

/** The Secret Manager client; the caller closes it on every path out. */
export const secretManagerClient = (config: JobConfig) =>
  new SecretManagerServiceClient(
    googleClientOptions(config.secretManagerEmulatorHost, config.projectId),
  );

/** The ports runPullSecretJob talks through, built on the real clients. */
export function jobDependencies(
  config: JobConfig,
  client: SecretManagerServiceClient,
  logger: Logger,
  redactor: SecretRedactor,
): JobDependencies {
  const secretStore = new GoogleSecretStore(client, {
    timeoutMs: config.apiTimeoutMs,
    retry: config.retry,
    logger,
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
    clusterSecrets: (cluster) => clusterSecrets(config, cluster, logger),
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

/** Publishes the result for the reporter; the Pub/Sub client loads only here (direct runs never pay). */
export async function publishResult(
  topic: string,
  result: JobResult,
  options: { logger: Logger; redactor: SecretRedactor; timeoutMs: number },
): Promise<void> {
  const { PubSub } = await import('../../../shared/gcp/lazy/pubsub.js');
  const publisher = new PubSubResultPublisher(
    new PubSub({ projectId: topic.split('/')[1]! }),
    topic,
    {
      retry: { attempts: 4, baseDelayMs: 500, maxDelayMs: 5000 },
      ...options,
    },
  );
  await publisher.publish(result);
  await publisher.close();
}
