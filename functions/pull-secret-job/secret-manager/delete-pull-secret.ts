import { TransientError } from '../../../shared/errors';
import type { Logger } from '../../../shared/logging/logger';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import {
  FOREIGN,
  NamespaceMissingError,
  WriteConflictError,
  type ClusterSecrets,
} from '../kubernetes/cluster-secrets';
import { stampedGeneration, writtenByNewer } from '../kubernetes/generation-stamp';
import { isOurSecretManagerSecret } from '../config/labels';
import type { SecretStore } from './secret-store';
import { unaliasVersions } from './publish-version';
import { leaveTombstone } from './tombstone';

/** What the delete phases did; `foreign` means a resource exists that we do not own and left alone. */
export interface DeleteOutcome {
  readonly kubernetes?: {
    readonly namespace: string;
    readonly name: string;
    readonly outcome: 'deleted' | 'absent' | 'foreign';
  };
  readonly secretManager: {
    readonly secretPath: string;
    /**
     * `deleted`: versions destroyed, the secret left as a tombstone (tombstone.ts); `absent`: no
     * version left to destroy (the delete's claim may have created the tombstone just now).
     */
    readonly outcome: 'deleted' | 'retained' | 'absent' | 'foreign';
    readonly disabledVersions: readonly string[];
    readonly destroyedVersions: readonly string[];
    /** The tombstone's ttl: Secret Manager deletes the secret by itself that long after. */
    readonly expiresAfterSeconds?: number;
  };
}

/** What removing one Kubernetes Secret did; `newer`: ours, but a newer generation wrote it (kept). */
export interface KubernetesRemoval {
  readonly namespace: string;
  readonly name: string;
  readonly outcome: NonNullable<DeleteOutcome['kubernetes']>['outcome'] | 'newer';
}

const MAX_CONFLICT_RETRIES = 5;

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
      existing = await secrets.readOwn(namespace, name, clusterId);
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

/** How the delete's Secret Manager phase treats the secret. */
export interface SecretManagerDisposal {
  /** ON_DELETE, or `retain` while places on unconfigured clusters are still recorded. */
  readonly onDelete: 'delete' | 'retain';
  /** The tombstone's ttl (TOMBSTONE_TTL). */
  readonly ttlSeconds: number;
  /** The delete's claim created the secret: there was nothing to retain (ON_DELETE=retain). */
  readonly createdByClaim: boolean;
}

/**
 * The delete's Secret Manager phase, on the secret only if we own it for this cluster: with
 * `delete` it is left as a tombstone (its versions destroyed, the delete's claim kept, a ttl:
 * tombstone.ts); with `retain` its enabled versions are disabled (nothing can read them, and they
 * can be re-enabled) and it is kept, with the delete's claim that holds back a lagging apply.
 */
export async function deleteSecretManagerSecret(
  store: SecretStore,
  secretPath: string,
  disposal: SecretManagerDisposal,
  { log, dryRun, retry }: { log: Logger; dryRun: boolean; retry: RetryPolicy },
  /** The cluster the secret must belong to (labels.ts, isOurs); another's is left untouched. */
  clusterId: string,
): Promise<DeleteOutcome['secretManager']> {
  const none = { disabledVersions: [], destroyedVersions: [] };
  const secret = await store.getSecret(secretPath);
  if (!secret) {
    log.info('Secret Manager secret already absent', {
      phase: 'secret-manager',
      operation: 'delete-secret',
    });
    return { secretPath, outcome: 'absent', ...none };
  }
  if (!isOurSecretManagerSecret(secret.labels, clusterId)) {
    log.warn("Secret Manager secret exists but is not this cluster's pull secret; left untouched", {
      phase: 'secret-manager',
      operation: 'delete-secret',
    });
    return { secretPath, outcome: 'foreign', ...none };
  }
  if (disposal.onDelete === 'delete') {
    const tombstone = await leaveTombstone(store, secretPath, disposal.ttlSeconds, {
      log: log.child({ phase: 'secret-manager' }),
      dryRun,
      retry,
    });
    if (!tombstone) return { secretPath, outcome: 'absent', ...none };
    return {
      secretPath,
      outcome: tombstone.destroyed.length > 0 ? 'deleted' : 'absent',
      disabledVersions: [],
      destroyedVersions: tombstone.destroyed,
      expiresAfterSeconds: tombstone.expiresAfterSeconds,
    };
  }
  const enabled = (await store.listVersions(secretPath)).filter((v) => v.state === 'ENABLED');
  if (!dryRun) {
    // No version is disabled while an alias names it (publish-version.ts): `current` goes first.
    const names = enabled.map((v) => v.name);
    await unaliasVersions(store, secretPath, names, { logger: log, retry });
    for (const name of names) await store.disableVersion(name);
  }
  log.info('Secret Manager secret retained; its versions are disabled (ON_DELETE=retain)', {
    phase: 'secret-manager',
    operation: 'disable-versions',
    versions: enabled.length,
  });
  return {
    secretPath,
    outcome: disposal.createdByClaim ? 'absent' : 'retained',
    disabledVersions: enabled.map((v) => v.name),
    destroyedVersions: [],
  };
}
