import { createHash } from 'node:crypto';
import { PermanentError, TransientError } from '../../../shared/errors';
import type { Logger } from '../../../shared/logging/logger';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import { backoffDelayMs } from '../../../shared/retry/backoff';
import {
  FOREIGN,
  NamespaceMissingError,
  WriteConflictError,
  type ClusterSecret,
  type ClusterSecrets,
  type DesiredClusterSecret,
} from './cluster-secrets';
import {
  NewerGenerationError,
  needsStamp,
  stampFor,
  stampedGeneration,
  writtenByNewer,
} from './generation-stamp';
import { sleep as realSleep } from '../../../shared/sleep';

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

/** What the job wants written, and the generation writing it (stamped on the Secret). */
export type DesiredPullSecret = Omit<DesiredClusterSecret, 'annotations'> & {
  readonly gcpSecretPath: string;
  /** Undefined for direct runs: nothing is stamped, and no stamp stops the write. */
  readonly generation?: number;
};

/**
 * The Secret at the target, read and compared: refused when it is not ours (ownership before the
 * stamp: another cluster's Secret is never compared or overwritten) or a newer generation wrote it.
 */
async function readToCompare(
  secrets: ClusterSecrets,
  desired: DesiredPullSecret,
): Promise<{ existing: ClusterSecret | undefined; sameContent: boolean }> {
  const { namespace, name } = desired;
  const clusterId = desired.labels['cluster-id'] ?? '';
  const existing = await secrets.probeOwn(namespace, name, clusterId);
  if (existing === FOREIGN) throw notOurs(namespace, name, clusterId);
  if (existing && writtenByNewer(existing.annotations, desired.generation))
    throw new NewerGenerationError(
      `Kubernetes Secret ${namespace}/${name}`,
      stampedGeneration(existing.annotations) ?? 0,
      desired.generation ?? 0,
    );
  const sameContent =
    existing !== undefined &&
    sha256(existing.dockerConfigJson) === sha256(desired.dockerConfigJson) &&
    existing.type === 'kubernetes.io/dockerconfigjson';
  return { existing, sameContent };
}

/**
 * Makes the management cluster hold `desired`: read first; create if missing; update only when the
 * content hash differs or its stamp is older than ours (needsStamp); re-read and retry on a
 * conflict; never touch a Secret we do not own, nor one a newer generation wrote (throws
 * NewerGenerationError: the write is conditional on the resourceVersion read with that stamp).
 */
export async function syncKubernetesSecret(
  secrets: ClusterSecrets,
  desired: DesiredPullSecret,
  options: KubernetesSyncOptions,
): Promise<KubernetesOutcome> {
  const { namespace, name } = desired;
  const log = options.logger.child({ phase: 'kubernetes', namespace, k8s_secret: name });
  const sleep = options.sleep ?? realSleep;
  const now = options.now ?? (() => new Date());
  const deadline = Date.now() + options.namespaceWaitMs;
  let namespaceAttempts = 0;

  for (let conflicts = 0; conflicts <= MAX_CONFLICT_RETRIES;) {
    const { existing, sameContent } = await readToCompare(secrets, desired);
    if (existing && sameContent && !needsStamp(existing.annotations, desired.generation)) {
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
      log.info(`Kubernetes Secret ${outcome}${sameContent ? ' (generation stamp only)' : ''}`, {
        operation: `${existing ? 'update' : 'create'}-secret`,
        resource_version: written.resourceVersion,
        ...(desired.generation !== undefined ? { generation: desired.generation } : {}),
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

/**
 * The same test as a removal's: what we would not delete we never overwrite. The job cannot read a
 * Secret that is not ours, so the message names the labels it expected, not the ones found.
 */
function notOurs(namespace: string, name: string, clusterId: string): PermanentError {
  return new PermanentError(
    `Kubernetes Secret ${namespace}/${name} exists but is not ours (labels managed-by=hyperfleet, adapter=pullsecret, cluster-id=${clusterId} expected), so it was not overwritten. ` +
      'Look at it as an administrator (kubectl get secret -n NAMESPACE NAME --show-labels); delete it if it is stale, or find out who writes it.',
    'SecretOwnershipConflict',
  );
}

/**
 * The labels and annotations we own, with the writing generation's stamp; `created-at` survives updates. Other actors' labels and
 * annotations are not copied: the update is a patch of our keys, so theirs stay as they are.
 */
function withAnnotations(
  desired: DesiredPullSecret,
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
      ...stampFor(desired.generation),
    },
  };
}
