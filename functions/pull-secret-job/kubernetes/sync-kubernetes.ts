import { createHash } from 'node:crypto';
import { PermanentError, TransientError } from '../../../shared/errors';
import type { Logger } from '../../../shared/logging/logger';
import { backoffDelayMs, type RetryPolicy } from '../../../shared/retry/backoff';
import { sleep as realSleep } from '../../../shared/sleep';
import {
  FOREIGN,
  NamespaceMissingError,
  WriteConflictError,
  type ClusterSecret,
  type ClusterSecrets,
  type DesiredClusterSecret,
} from './cluster-secrets';
import { newerDefaultStored, NewerDefaultError } from './default-version';
import {
  namesSource,
  sourceAnnotations,
  staleSourceAnnotations,
  type SecretSource,
} from './secret-source';

// Writing and removing our Kubernetes Secret on a management cluster, under the generation stamp:
// the generation whose execution last wrote the Secret, stamped on the Secret itself.
//
// The claim (claim/claim.ts) orders executions in Secret Manager, but a Kubernetes write or delete
// cannot be made conditional on it: an execution that passed its claim re-check may still be slow, and a
// newer generation may write, confirm or move the Secret before the lagging call lands. The stamp
// puts the order where the write happens: every write and delete we make carries the Secret's
// `resourceVersion` as a precondition, so "read the stamp, then write or delete" is atomic, and a
// lagging generation sees what a newer one did instead of undoing it.

/** The annotation the generation stamp is written in. */
export const GENERATION_ANNOTATION = 'hyperfleet.io/generation';

export const ANNOTATIONS = {
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
  readonly source: SecretSource;
  /** Undefined for direct runs: nothing is stamped, and no stamp stops the write. */
  readonly generation?: number;
};

/**
 * The Secret at the target, read and compared: refused when it is not ours (ownership before the
 * stamp: another cluster's Secret is never compared or overwritten), a newer generation wrote it,
 * or this generation's run of a newer platform default version did (NewerDefaultError).
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
  // At the same generation a rotation orders by the default's version: never back to an older one.
  const newer = existing
    ? newerDefaultStored(
        { generation: stampedGeneration(existing.annotations), annotations: existing.annotations },
        { generation: desired.generation, defaultVersion: desired.source.defaultVersion },
      )
    : undefined;
  if (newer) throw new NewerDefaultError(`Kubernetes Secret ${namespace}/${name}`, newer);
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
    if (
      existing &&
      sameContent &&
      namesSource(existing.annotations, desired.source) &&
      !needsStamp(existing.annotations, desired.generation)
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
      log.info(`Kubernetes Secret ${outcome}${sameContent ? ' (annotations only)' : ''}`, {
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
      ...sourceAnnotations(desired.source),
      [ANNOTATIONS.createdBy]: 'pullsecret-adapter',
      [ANNOTATIONS.createdAt]: existing?.annotations[ANNOTATIONS.createdAt] ?? now().toISOString(),
      ...stampFor(desired.generation),
    },
    removedAnnotations: existing
      ? staleSourceAnnotations(existing.annotations, desired.source)
      : [],
  };
}

/** What removing one Kubernetes Secret did; `newer`: ours, but a newer generation wrote it (kept). */
export interface KubernetesRemoval {
  readonly namespace: string;
  readonly name: string;
  /** `foreign`: a Secret that is not ours stands there, left alone. */
  readonly outcome: 'deleted' | 'absent' | 'foreign' | 'newer';
}

/**
 * Deletes the Kubernetes Secret if and only if it is ours (labels managed-by, adapter and this
 * cluster's cluster-id) and no generation newer than `generation` wrote it (its stamp, read with
 * the resourceVersion the delete is conditional on); already gone is success; anything else there
 * is left alone and logged.
 */
export async function deleteKubernetesSecret(
  secrets: ClusterSecrets,
  namespace: string,
  name: string,
  clusterId: string,
  log: Logger,
  dryRun: boolean,
  generation?: number,
): Promise<KubernetesRemoval> {
  for (let conflicts = 0; conflicts <= MAX_CONFLICT_RETRIES; conflicts++) {
    let existing;
    try {
      existing = await secrets.probeOwn(namespace, name, clusterId);
    } catch (error) {
      if (error instanceof NamespaceMissingError) return { namespace, name, outcome: 'absent' };
      throw error;
    }
    if (!existing) {
      log.info('Kubernetes Secret already absent', {
        phase: 'kubernetes',
        operation: 'delete-secret',
      });
      return { namespace, name, outcome: 'absent' };
    }
    if (existing === FOREIGN) {
      log.warn(
        `Kubernetes Secret ${namespace}/${name} exists but is not ours (labels managed-by=hyperfleet, adapter=pullsecret, cluster-id=${clusterId}); left untouched`,
        { phase: 'kubernetes', operation: 'delete-secret', namespace, k8s_secret: name },
      );
      return { namespace, name, outcome: 'foreign' };
    }
    if (writtenByNewer(existing.annotations, generation)) {
      log.info(
        `Kubernetes Secret ${namespace}/${name} was written by generation ${stampedGeneration(existing.annotations)}, newer than ours (${generation}); left in place`,
        { phase: 'kubernetes', operation: 'delete-secret', namespace, k8s_secret: name },
      );
      return { namespace, name, outcome: 'newer' };
    }
    if (dryRun) return { namespace, name, outcome: 'deleted' };
    try {
      const deleted = await secrets.delete(namespace, name, existing.resourceVersion);
      log.info(deleted ? 'Kubernetes Secret deleted' : 'Kubernetes Secret already absent', {
        phase: 'kubernetes',
        operation: 'delete-secret',
      });
      return { namespace, name, outcome: deleted ? 'deleted' : 'absent' };
    } catch (error) {
      if (!(error instanceof WriteConflictError)) throw error;
      log.warn('Kubernetes Secret changed before deletion; reading it again', {
        phase: 'kubernetes',
        operation: 'delete-secret',
      });
    }
  }
  // Ours is still there: never report it absent (the caller would forget the place). Transient:
  // whoever keeps changing it stops, and the next execution removes it.
  throw new TransientError(
    `Kubernetes Secret ${namespace}/${name} kept changing while we deleted it (${MAX_CONFLICT_RETRIES + 1} conflicts); it is still there and stays recorded. The next execution removes it.`,
    'KubernetesConflict',
  );
}

/**
 * The generation stamped on a Secret; undefined when it has none (written before stamps existed,
 * or by a direct run) or when the value is not a positive integer (edited by hand: such a stamp
 * orders nothing, so the Secret is treated as unstamped and may be overwritten or removed).
 */
export function stampedGeneration(
  annotations: Readonly<Record<string, string>> | undefined,
): number | undefined {
  const value = annotations?.[GENERATION_ANNOTATION];
  if (value === undefined || !/^[1-9]\d{0,15}$/.test(value)) return undefined;
  return Number(value);
}

/**
 * True when a newer generation than `mine` wrote the Secret: it must be neither overwritten nor
 * removed. Executions without a generation (direct runs, dry runs of a direct run) are outside the
 * order and never yield; an unstamped Secret is never newer.
 */
export function writtenByNewer(
  annotations: Readonly<Record<string, string>> | undefined,
  mine: number | undefined,
): boolean {
  const stamped = stampedGeneration(annotations);
  return mine !== undefined && stamped !== undefined && stamped > mine;
}

/**
 * True when a Secret whose bytes are already right must still be written to carry `mine`: whenever
 * the stored stamp is older than mine (or absent). Only an execution older than us can still undo
 * our state, and a stamp below ours stops none of those between it and us: a lagging one with
 * other bytes would overwrite it (a lost write), or remove it as an old place after a move back.
 * Once stamped with ours, a task retry or a relaunch of our generation finds nothing to write. The
 * cost: one patch on a generation change that leaves the pull secret as it was. Executions without
 * a generation (direct runs) are outside the order and never stamp.
 */
export function needsStamp(
  annotations: Readonly<Record<string, string>> | undefined,
  mine: number | undefined,
): boolean {
  if (mine === undefined) return false;
  const stamped = stampedGeneration(annotations);
  return stamped === undefined || stamped < mine;
}

/** The stamp to write: none for executions without a generation (the existing one stays). */
export const stampFor = (mine: number | undefined): Record<string, string> =>
  mine === undefined ? {} : { [GENERATION_ANNOTATION]: String(mine) };

/**
 * The Secret at the target was written by a newer generation: this execution stops without
 * writing. Thrown by the sync; the Kubernetes phase re-reads the claim and normally ends superseded.
 */
export class NewerGenerationError extends PermanentError {
  constructor(
    readonly where: string,
    readonly stamped: number,
    readonly mine: number,
  ) {
    super(
      `${where} carries ${GENERATION_ANNOTATION}=${stamped}, newer than this execution's generation ${mine}, yet no newer execution holds the pull secret claim. It was left as it is. If that annotation is stale (set by hand, or left from an earlier cluster with the same id), remove it and run the job again.`,
      'SecretGenerationAhead',
    );
  }
}
