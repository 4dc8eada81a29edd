import type { Logger } from '../../../shared/logging/logger';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import { isOurSecretManagerSecret } from '../config/labels';
import type { KubernetesRemoval } from '../kubernetes/sync-kubernetes';
import { unaliasVersions } from './publish-version';
import type { SecretStore } from './secret-store';

// The delete's Secret Manager phase. What a delete leaves in Secret Manager with ON_DELETE=delete:
// a tombstone, not nothing (with ON_DELETE=retain: the secret, its versions disabled).
//
// A delete that removed the secret would let an apply that lags behind it (in flight when the
// cluster was deleted) find no secret, create one with its own claim and write the customer's
// pull secret back, for good. The tombstone is the secret itself, kept with the delete's claim in
// its annotations (a delete wins over an apply of its generation, and a delete's generation is
// newer than any apply's: shared/pull-secret/claim.ts), every version destroyed (the bytes are
// gone at once, irreversibly), and a ttl after which Secret Manager deletes the secret by itself
// ("Expired secrets are irreversibly deleted": Secret.expiration in
// google/cloud/secretmanager/v1/resources.proto; set and updated with UpdateSecret, update_mask
// `ttl`: https://cloud.google.com/secret-manager/docs/creating-and-managing-expiring-secrets).
// A delete that finds no secret creates the tombstone with its claim (claim/claim.ts), so an apply
// that arrives later gets ALREADY_EXISTS, reads the delete's claim and stops as superseded.
//
// The ttl (TOMBSTONE_TTL) must outlast every apply that passed its cluster check before the delete
// was requested (claim/cluster-check.ts): such an apply can write until its execution ends, which
// Cloud Run bounds by the task timeout times the attempts. A versionless secret costs nothing
// (Secret Manager bills active versions and access operations), so the margin is generous.
// docs/design/job-protocol.md, "Nothing comes back after a delete", says which race each part closes.

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
     * `deleted`: versions destroyed, the secret left as a tombstone (leaveTombstone); `absent`: no
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
 * leaveTombstone); with `retain` its enabled versions are disabled (nothing can read them, and they
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

/** What leaving the tombstone did. */
interface Tombstone {
  /** The versions destroyed now (every one not destroyed before). */
  readonly destroyed: readonly string[];
  /** When Secret Manager deletes the secret by itself (at least; a later delete moves it on). */
  readonly expiresAfterSeconds: number;
}

/**
 * Turns the cluster's secret into a tombstone: the ttl first, so that a run stopped between the two
 * calls still leaves a secret that goes by itself, then every version destroyed. Annotations and
 * labels are left as they are (the delete's claim holds back a lagging apply). Undefined when the
 * secret is already gone (expired, or deleted by hand).
 */
async function leaveTombstone(
  store: SecretStore,
  secretPath: string,
  ttlSeconds: number,
  { log, dryRun, retry }: { log: Logger; dryRun: boolean; retry: RetryPolicy },
): Promise<Tombstone | undefined> {
  if (!dryRun && (await store.expireAfter(secretPath, ttlSeconds)) === 'gone') return undefined;
  const live = (await store.listVersions(secretPath)).filter((v) => v.state !== 'DESTROYED');
  if (!dryRun) {
    // No version is destroyed while an alias names it (publish-version.ts): `current` goes first.
    const names = live.map((v) => v.name);
    await unaliasVersions(store, secretPath, names, { logger: log, retry });
    // Destroying a version a lagging apply destroyed first answers FAILED_PRECONDITION: done.
    for (const name of names) await store.destroyVersion(name);
  }
  log.info(
    `${dryRun ? 'Dry run: would leave' : 'Left'} the secret as a tombstone: ${live.length} version(s) destroyed, the delete's claim kept, deleted by Secret Manager in ${ttlSeconds} s`,
    { operation: 'tombstone', versions: live.length, ttl_seconds: ttlSeconds },
  );
  return { destroyed: live.map((v) => v.name), expiresAfterSeconds: ttlSeconds };
}
