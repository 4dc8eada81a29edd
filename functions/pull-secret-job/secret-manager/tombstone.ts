import type { Logger } from '../../../shared/logging/logger';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import { unaliasVersions } from './publish-version';
import type { SecretStore } from './secret-store';

// What a delete leaves in Secret Manager with ON_DELETE=delete: a tombstone, not nothing.
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
// A delete that finds no secret creates the tombstone with its claim (claim-step.ts), so an apply
// that arrives later gets ALREADY_EXISTS, reads the delete's claim and stops as superseded.
//
// The ttl (TOMBSTONE_TTL) must outlast every apply that passed its cluster check before the delete
// was requested (claim/cluster-check.ts): such an apply can write until its execution ends, which
// Cloud Run bounds by the task timeout times the attempts. A versionless secret costs nothing
// (Secret Manager bills active versions and access operations), so the margin is generous.
// docs/design/job-protocol.md, "Nothing comes back after a delete", says which race each part closes.

/** What leaving the tombstone did. */
export interface Tombstone {
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
export async function leaveTombstone(
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
