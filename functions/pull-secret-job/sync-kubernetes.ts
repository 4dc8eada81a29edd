import { createHash } from 'node:crypto';
import { PermanentError, TransientError } from '../../shared/errors';
import type { Logger } from '../../shared/logging/logger';
import type { RetryPolicy } from '../../shared/retry/backoff';
import { backoffDelayMs } from '../../shared/retry/backoff';
import {
  NamespaceMissingError,
  WriteConflictError,
  type ClusterSecret,
  type ClusterSecrets,
  type DesiredClusterSecret,
} from './cluster-secrets';
import { isOwnedByHyperfleet } from './labels';

export const ANNOTATIONS = {
  gcpSecretPath: 'hyperfleet.io/gcp-secret-path',
  createdBy: 'hyperfleet.io/created-by',
  createdAt: 'hyperfleet.io/created-at',
} as const;

/** What the Kubernetes phase did. */
export interface KubernetesOutcome {
  readonly namespace: string;
  readonly name: string;
  readonly outcome: 'created' | 'updated' | 'unchanged';
  readonly resourceVersion?: string;
}

export interface KubernetesSyncOptions {
  readonly logger: Logger;
  readonly dryRun: boolean;
  /** How long to wait for a missing namespace (placement may still be creating it). */
  readonly namespaceWaitMs: number;
  readonly retry: RetryPolicy;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => Date;
}

const MAX_CONFLICT_RETRIES = 5;
const sha256 = (bytes: Buffer | undefined) =>
  bytes ? createHash('sha256').update(bytes).digest('hex') : '';

/**
 * Makes the management cluster hold `desired`: read first; create if missing; update only when the
 * content hash differs; re-read and retry on a conflict; never touch a Secret we do not own.
 */
export async function syncKubernetesSecret(
  secrets: ClusterSecrets,
  desired: Omit<DesiredClusterSecret, 'annotations'> & { gcpSecretPath: string },
  options: KubernetesSyncOptions,
): Promise<KubernetesOutcome> {
  const { namespace, name } = desired;
  const log = options.logger.child({ phase: 'kubernetes', namespace, k8s_secret: name });
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = options.now ?? (() => new Date());
  const deadline = Date.now() + options.namespaceWaitMs;
  let namespaceAttempts = 0;

  for (let conflicts = 0; conflicts <= MAX_CONFLICT_RETRIES;) {
    const existing = await secrets.get(namespace, name);
    if (existing) assertOwned(existing);
    if (
      existing &&
      sha256(existing.dockerConfigJson) === sha256(desired.dockerConfigJson) &&
      existing.type === 'kubernetes.io/dockerconfigjson'
    ) {
      log.info('Kubernetes Secret unchanged', {
        operation: 'compare-secret',
        resource_version: existing.resourceVersion,
      });
      return { namespace, name, outcome: 'unchanged', resourceVersion: existing.resourceVersion };
    }
    const target = withAnnotations(desired, existing, now);
    if (options.dryRun) {
      log.info(`Dry run: would ${existing ? 'update' : 'create'} the Kubernetes Secret`, {
        operation: existing ? 'update-secret' : 'create-secret',
      });
      return { namespace, name, outcome: existing ? 'updated' : 'created' };
    }
    try {
      const written = existing
        ? await secrets.update(target, existing.resourceVersion)
        : await secrets.create(target);
      const outcome = existing ? 'updated' : 'created';
      log.info(`Kubernetes Secret ${outcome}`, {
        operation: `${existing ? 'update' : 'create'}-secret`,
        resource_version: written.resourceVersion,
      });
      return { namespace, name, outcome, resourceVersion: written.resourceVersion };
    } catch (error) {
      if (error instanceof WriteConflictError) {
        conflicts++;
        log.warn('Kubernetes Secret changed concurrently; reading it again', {
          operation: 'resolve-conflict',
          retry: conflicts,
        });
        continue;
      }
      if (error instanceof NamespaceMissingError) {
        namespaceAttempts++;
        const delay = backoffDelayMs(namespaceAttempts, options.retry);
        if (Date.now() + delay > deadline) {
          throw new TransientError(
            `NamespaceNotFound: namespace "${namespace}" does not exist in the management cluster after waiting ${Math.round(options.namespaceWaitMs / 1000)} s. ` +
              'The placement adapter creates it; the next execution will try again.',
            'NamespaceNotFound',
          );
        }
        log.warn('Management namespace not found yet; waiting for placement to create it', {
          operation: 'wait-namespace',
          retry: namespaceAttempts,
          delay_ms: delay,
        });
        await sleep(delay);
        continue;
      }
      throw error;
    }
  }
  throw new TransientError(
    `Kubernetes Secret ${namespace}/${name} kept changing concurrently (${MAX_CONFLICT_RETRIES} conflicts).`,
    'KubernetesConflict',
  );
}

function assertOwned(existing: ClusterSecret): void {
  if (!isOwnedByHyperfleet(existing.labels)) {
    throw new PermanentError(
      `Kubernetes Secret ${existing.namespace}/${existing.name} exists but is not managed by HyperFleet (label managed-by=hyperfleet is missing), so it was not overwritten. ` +
        'Delete or rename it, or set K8S_SECRET_NAME to a different name.',
      'SecretOwnershipConflict',
    );
  }
}

/**
 * The labels and annotations we own; `created-at` survives updates. Other actors' labels and
 * annotations are not copied: the update is a patch of our keys, so theirs stay as they are.
 */
function withAnnotations(
  desired: Omit<DesiredClusterSecret, 'annotations'> & { gcpSecretPath: string },
  existing: ClusterSecret | undefined,
  now: () => Date,
): DesiredClusterSecret {
  return {
    namespace: desired.namespace,
    name: desired.name,
    dockerConfigJson: desired.dockerConfigJson,
    labels: { ...desired.labels },
    annotations: {
      [ANNOTATIONS.gcpSecretPath]: desired.gcpSecretPath,
      [ANNOTATIONS.createdBy]: 'pullsecret-adapter',
      [ANNOTATIONS.createdAt]: existing?.annotations[ANNOTATIONS.createdAt] ?? now().toISOString(),
    },
  };
}
