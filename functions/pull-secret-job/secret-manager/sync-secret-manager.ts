import { isFailureKind, PermanentError } from '../../../shared/errors';
import { crc32c } from '../../../shared/gcp/crc32c';
import { versionNumberOf } from '../../../shared/gcp/secret-manager-names';
import { grpcCode } from '../../../shared/gcp/grpc-failure';
import type { Logger } from '../../../shared/logging/logger';
import { claimFromAnnotations } from '../../../shared/pull-secret/claim';
import { PUBLISHED_VERSION_ALIAS, publishedVersionPath } from '../../../shared/pull-secret/names';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import { withRetry } from '../../../shared/retry/with-retry';
import type { LostClaim } from '../claim/claim';
import { ownershipMismatch } from '../config/labels';
import {
  aliasesOf,
  mayWithdrawAdopted,
  publishVersion,
  withdrawLostPublication,
  type Publisher,
} from './publish-version';
import type { Replication, SecretMetadata, SecretStore, VersionPayload } from './secret-store';

// Storing the pull secret as a version of the cluster's Secret Manager secret: read the secret and
// what readers read, compare, add a version only when the bytes differ (once, a lost answer
// adopted), publish it (the compare-and-swap is publish-version.ts), then retention.

/** Where and how the pull secret is stored. */
export interface SecretManagerTarget {
  readonly projectId: string;
  readonly secretId: string;
  /** The cluster the secret must belong to (labels.ts, isOurs). */
  readonly clusterId: string;
  readonly labels: Record<string, string>;
  readonly replication: Replication;
  /** Keep only the newest N versions (older ones are destroyed); undefined keeps all. */
  readonly retention?: number;
}

/** What the phase did (or, in a dry run, would do). */
export interface SecretManagerOutcome {
  readonly secretPath: string;
  readonly secret: 'created' | 'reused';
  /** `none`: the platform default is in use and not copied (tenant-copy.ts); the secret holds no version of it. */
  readonly version: 'added' | 'unchanged' | 'none';
  /** Full name of the version holding the bytes, `.../versions/N`; empty in a dry run that would add, and with `none`. */
  readonly versionName: string;
  /** The bytes were checked: by AddSecretVersion's data_crc32c, or by the comparison that found them unchanged. */
  readonly verified: boolean;
  readonly destroyedVersions: readonly string[];
  /** Set when a newer execution published first: the run stands aside (its own version withdrawn). */
  readonly lost?: LostClaim;
  /** The cluster was checked before publishing (SyncOptions.checkBeforePublishing): no need again. */
  readonly clusterChecked?: true;
}

export interface SyncOptions {
  readonly logger: Logger;
  readonly retry: RetryPolicy;
  readonly dryRun: boolean;
  /** Set when the claim (claim/claim.ts) already created or checked the secret: no read needed. */
  readonly claimed?: 'created' | 'reused';
  /** The secret as the claim left it: the publication's compare-and-swap starts from its etag. */
  readonly claimedSecret?: SecretMetadata;
  /** Who publishes (publish-version.ts); a run without one publishes as a direct run. */
  readonly publisher?: Publisher;
  /**
   * The cluster check before publishing (cluster-check.ts): a cluster being deleted, gone or at a
   * newer generation is found before `current` could name our version, which is then withdrawn.
   */
  readonly checkBeforePublishing?: () => Promise<LostClaim | undefined>;
}

/** A direct run (no GENERATION, no claim) publishes unless a delete holds the secret (its tombstone). */
export const DIRECT_RUN_PUBLISHER: Publisher = {
  lostIn: (current) => {
    const holder = claimFromAnnotations(current?.annotations);
    return holder?.operation === 'delete' ? { kind: 'superseded', holder } : undefined;
  },
};

/**
 * Stores `data` as the cluster's current pull secret with the fewest calls: read the secret
 * (unless the claim just did); create it if missing; refuse secrets we do not own; compare with
 * what readers read (the `current` alias); add a version only if the bytes differ (the server
 * checks its CRC32C); make it current through the compare-and-swap a newer generation wins
 * (publish-version.ts), withdrawing it when one did; then retention.
 */
export async function syncSecretManager(
  store: SecretStore,
  target: SecretManagerTarget,
  data: Buffer,
  options: SyncOptions,
): Promise<SecretManagerOutcome> {
  const { logger, dryRun } = options;
  const secretPath = `projects/${target.projectId}/secrets/${target.secretId}`;
  const log = logger.child({ phase: 'secret-manager', secret_name: target.secretId });
  const base = { secretPath, verified: false, destroyedVersions: [] as string[] };

  const known = await knownSecret(store, target, secretPath, options, log);
  if (known === 'would-create') {
    log.info('Dry run: would create the secret and add version 1', {
      operation: 'create-secret',
    });
    return { ...base, secret: 'created', version: 'added', versionName: '' };
  }
  const { state, secret } = known;
  const current = state === 'created' ? undefined : await readCurrent(store, secretPath, secret);
  if (current && current.data.equals(data)) {
    log.info('Secret version unchanged', { operation: 'compare-version', version: current.name });
    const unchanged = {
      ...base,
      secret: state,
      version: 'unchanged',
      versionName: current.name,
      verified: true,
    } as const;
    // A secret published before the alias existed: name its version now, for its readers.
    if (dryRun || secret?.versionAliases[PUBLISHED_VERSION_ALIAS] !== undefined) return unchanged;
    const lost = await publish(store, secretPath, current.name, secret, {
      ...options,
      logger: log,
    });
    return {
      ...unchanged,
      ...('lost' in lost ? { lost: lost.lost } : {}),
      ...(options.checkBeforePublishing ? { clusterChecked: true } : {}),
    };
  }
  if (dryRun) {
    log.info('Dry run: would add a new version', { operation: 'add-secret-version' });
    return { ...base, secret: state, version: 'added', versionName: '' };
  }

  const added = await addVersionOnce(store, secretPath, data, {
    logger: log,
    retry: options.retry,
  });
  const outcome = {
    ...base,
    secret: state,
    version: 'added',
    versionName: added.name,
    verified: true,
    ...(options.checkBeforePublishing ? { clusterChecked: true as const } : {}),
  } as const;
  const published = await publish(store, secretPath, added.name, secret, {
    ...options,
    logger: log,
  });
  if ('lost' in published) {
    const withdrawn = await withdrawAfterLoss(store, added, published.seen, options, log);
    return { ...outcome, destroyedVersions: withdrawn ? [added.name] : [], lost: published.lost };
  }
  const destroyedVersions = await pruneAfterAdd(store, secretPath, {
    keep: target.retention,
    secretState: state,
    added: added.name,
    aliased: published.seen ? aliasesOf(published.seen) : new Set(),
    log,
  });
  return { ...outcome, destroyedVersions };
}

/** The secret as the claim left it, else read (and created when missing). */
async function knownSecret(
  store: SecretStore,
  target: SecretManagerTarget,
  secretPath: string,
  options: SyncOptions,
  log: Logger,
): Promise<{ state: 'created' | 'reused'; secret: SecretMetadata | undefined } | 'would-create'> {
  if (options.claimed && options.claimedSecret)
    return { state: options.claimed, secret: options.claimedSecret };
  const ensured = await ensureSecretSeen(store, target, secretPath, {
    log,
    dryRun: options.dryRun,
  });
  if (ensured === 'would-create') return ensured;
  return { state: options.claimed ?? ensured.state, secret: ensured.secret };
}

/**
 * Reads the secret and creates it when missing (ALREADY_EXISTS from a concurrent job is fine),
 * answering it as read or created (its etag, its aliases).
 */
export async function ensureSecretSeen(
  store: SecretStore,
  target: SecretManagerTarget,
  secretPath: string,
  { log, dryRun }: { log: Logger; dryRun: boolean },
): Promise<{ state: 'created' | 'reused'; secret: SecretMetadata | undefined } | 'would-create'> {
  let current = await store.getSecret(secretPath);
  if (!current) {
    if (dryRun) return 'would-create';
    const created = await store.createSecret(target.projectId, target.secretId, {
      labels: target.labels,
      replication: target.replication,
    });
    if (created !== 'exists') {
      log.info('Created secret', { operation: 'create-secret' });
      return { state: 'created', secret: created };
    }
    log.info('Secret was created concurrently by another execution', {
      operation: 'create-secret',
    });
    current = await store.getSecret(secretPath);
  }
  if (current) assertOwned(secretPath, current.labels, target.clusterId);
  return { state: 'reused', secret: current };
}

/** Refuses a secret that is not ours for this cluster (labels.ts, isOurs), naming the labels. */
export function assertOwned(
  secretPath: string,
  labels: Readonly<Record<string, string>>,
  clusterId: string,
): void {
  const mismatch = ownershipMismatch(labels, clusterId);
  if (mismatch) {
    throw new PermanentError(
      `Secret Manager secret ${secretPath} exists but is not managed by HyperFleet for this cluster (${mismatch}; ours carry managed-by=hyperfleet, adapter=pullsecret, cluster-id=${clusterId}), so it was left untouched. ` +
        'Rename or delete that secret, or set SECRET_NAME to a different name.',
      'SecretOwnershipConflict',
    );
  }
}

/**
 * What readers read: the `current` alias, or `latest` for a secret published before the alias
 * existed (the job then publishes the alias). Undefined when there is no enabled version there.
 */
function readCurrent(
  store: SecretStore,
  secretPath: string,
  secret: SecretMetadata | undefined,
): Promise<VersionPayload | undefined> {
  const aliased = secret?.versionAliases[PUBLISHED_VERSION_ALIAS] !== undefined;
  return store.accessVersion(
    aliased ? publishedVersionPath(secretPath) : `${secretPath}/versions/latest`,
  );
}

/** The version holding the bytes; `adopted` when a retry found it rather than AddSecretVersion answering it. */
interface AddedVersion {
  readonly name: string;
  readonly adopted: boolean;
}

/**
 * Adds the version with its CRC32C, retrying transient failures. The server checks data_crc32c and
 * refuses a mismatch (INVALID_ARGUMENT), so the bytes stored are the bytes sent: no read-back.
 * Before each retry it re-reads `latest`: a call that timed out may still have been applied, and
 * adding again would create a duplicate version. A version found that way is `adopted`: it holds
 * these bytes, but another execution with the same bytes may have added it, so it is never ours
 * to withdraw (publish-version.ts).
 */
async function addVersionOnce(
  store: SecretStore,
  secretPath: string,
  data: Buffer,
  options: { logger: Logger; retry: RetryPolicy },
): Promise<AddedVersion> {
  const checksum = crc32c(data);
  const added = await withRetry(
    async (attempt): Promise<AddedVersion> => {
      if (attempt > 1) {
        const latest = await store.accessVersion(`${secretPath}/versions/latest`);
        if (latest?.data.equals(data)) return { name: latest.name, adopted: true };
      }
      return { name: (await store.addVersion(secretPath, data, checksum)).name, adopted: false };
    },
    {
      policy: options.retry,
      isRetryable: (error) => isFailureKind(error, 'transient'),
      onRetry: ({ retry, delayMs }) =>
        options.logger.warn('AddSecretVersion failed, checking before retrying', {
          operation: 'add-secret-version',
          retry,
          delay_ms: delayMs,
        }),
    },
  );
  options.logger.info('Added secret version', {
    operation: 'add-secret-version',
    version: added.name,
    bytes: data.length,
  });
  return added;
}

/**
 * The loser's withdrawal: a version this run knows it added; one adopted after a lost answer only
 * when no execution can still publish it (mayWithdrawAdopted). Whether it was destroyed.
 */
function withdrawAfterLoss(
  store: SecretStore,
  added: { readonly name: string; readonly adopted: boolean },
  seen: SecretMetadata | undefined,
  options: SyncOptions,
  log: Logger,
): Promise<boolean> {
  const withdrawable =
    !added.adopted || mayWithdrawAdopted(seen, added.name, options.publisher?.generation);
  return withdrawable
    ? withdrawLostPublication(store, added.name, seen, log)
    : Promise.resolve(false);
}

async function publish(
  store: SecretStore,
  secretPath: string,
  versionName: string,
  known: SecretMetadata | undefined,
  options: SyncOptions,
): Promise<{ seen: SecretMetadata | undefined } & ({ published: true } | { lost: LostClaim })> {
  // Checked before the swap, not after it: `current` never names a version of a cluster that is
  // going away, nor one a newer generation is about to replace.
  const stale = await options.checkBeforePublishing?.();
  if (stale) return { lost: stale, seen: known };
  const { answer, seen } = await publishVersion(
    store,
    secretPath,
    versionName,
    options.publisher ?? DIRECT_RUN_PUBLISHER,
    { logger: options.logger, retry: options.retry, known },
  );
  return { ...answer, seen };
}

/**
 * SECRET_VERSION_RETENTION after a run added and published `added`: destroys the versions before
 * it beyond the newest `keep` (each kept version is billed monthly; docs/configuration.md, "Secret
 * Manager versions"). Never one an alias names (`aliased`, as the publication last saw the secret:
 * `current`, or a customer's), and never one numbered after `added`: a newer execution added it,
 * and it is that execution's to publish or withdraw. Returns the destroyed versions' names.
 */
async function pruneAfterAdd(
  store: SecretStore,
  secretPath: string,
  run: {
    keep: number | undefined;
    secretState: 'created' | 'reused';
    added: string;
    aliased: ReadonlySet<number>;
    log: Logger;
  },
): Promise<string[]> {
  if (!needsRetention(run.keep, run.secretState, run.added)) return [];
  return applyRetentionOrWarn(store, secretPath, { ...run, keep: run.keep });
}

/**
 * Whether adding `added` can have left more than `keep` live versions: not in a secret this run
 * created (it holds only that version), nor while the version number is at most `keep`. Saves
 * the ListSecretVersions call on first runs and early changes.
 */
function needsRetention(
  keep: number | undefined,
  secretState: 'created' | 'reused',
  added: string,
): keep is number {
  if (keep === undefined || secretState === 'created') return false;
  return !(versionNumberOf(added) <= keep);
}

/**
 * Retention after the write it follows: a failure to prune costs money, not correctness, so it is
 * logged and the run goes on to deliver the pull secret (failing here would relaunch a run that
 * finds the bytes unchanged and never prunes either). The next added version prunes again.
 */
async function applyRetentionOrWarn(
  store: SecretStore,
  secretPath: string,
  run: { keep: number; added: string; aliased: ReadonlySet<number>; log: Logger },
): Promise<string[]> {
  try {
    return await applyRetention(store, secretPath, run);
  } catch (error) {
    run.log.warn(
      'Could not destroy old secret versions (SECRET_VERSION_RETENTION); they stay billed until the next change prunes them',
      {
        operation: 'destroy-version',
        reason: 'RetentionFailed',
        grpc_code: grpcCode(error),
      },
    );
    return [];
  }
}

/**
 * Destroys enabled or disabled versions before `added` beyond the newest `keep` (counting `added`),
 * since each kept version is billed; an aliased one is kept and does not count.
 */
async function applyRetention(
  store: SecretStore,
  secretPath: string,
  {
    keep,
    added,
    aliased,
    log,
  }: { keep: number; added: string; aliased: ReadonlySet<number>; log: Logger },
): Promise<string[]> {
  const mine = versionNumberOf(added);
  const versions = await store.listVersions(secretPath);
  const before = versions
    .filter((v) => v.state !== 'DESTROYED' && v.number < mine && !aliased.has(v.number))
    .sort((a, b) => b.number - a.number);
  const doomed = before.slice(Math.max(keep - 1, 0));
  for (const version of doomed) {
    await store.destroyVersion(version.name);
    log.info('Destroyed old secret version (SECRET_VERSION_RETENTION)', {
      operation: 'destroy-version',
      version: version.name,
    });
  }
  return doomed.map((v) => v.name);
}
