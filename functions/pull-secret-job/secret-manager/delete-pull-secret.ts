import type { Logger } from '../../../shared/logging/logger';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import type { KubernetesRemoval } from '../kubernetes/delete-kubernetes-secret';
import { isOurSecretManagerSecret } from '../config/labels';
import type { SecretStore } from './secret-store';
import { unaliasVersions } from './publish-version';
import { leaveTombstone } from './tombstone';

/** What the delete phases did; `foreign` means a resource exists that we do not own and left alone. */
export interface DeleteOutcome {
  readonly kubernetes?: {
    readonly namespace: string;
    readonly name: string;
    /** Never `newer`: a place a newer generation wrote is kept, not removed (remove-places.ts). */
    readonly outcome: Exclude<KubernetesRemoval['outcome'], 'newer'>;
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
