import { PermanentError, TransientError, isFailureKind } from '../../../shared/errors';
import { crc32c } from '../../../shared/gcp/crc32c';
import type { Logger } from '../../../shared/logging/logger';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import { withRetry } from '../../../shared/retry/with-retry';
import { ownershipMismatch } from '../config/labels';
import type { Replication, SecretStore, VersionPayload } from './secret-store';
import { pruneAfterAdd } from './version-retention';

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
  readonly verified: boolean;
  readonly destroyedVersions: readonly string[];
}

export interface SyncOptions {
  readonly logger: Logger;
  readonly retry: RetryPolicy;
  readonly dryRun: boolean;
  /** Set when the claim (claim-work.ts) already created or checked the secret: no read needed. */
  readonly claimed?: 'created' | 'reused';
}

/**
 * Stores `data` as the latest version of the cluster's secret with the fewest calls: read the
 * secret (unless the claim just did); create it if missing; refuse secrets we do not own; add a
 * version only if the bytes differ; verify by reading that exact version back.
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

  const secretState =
    options.claimed ?? (await ensureSecret(store, target, secretPath, { log, dryRun }));
  if (secretState === 'would-create') {
    log.info('Dry run: would create the secret and add version 1', {
      operation: 'create-secret',
    });
    return {
      secretPath,
      secret: 'created',
      version: 'added',
      versionName: '',
      verified: false,
      destroyedVersions: [],
    };
  }

  // A secret we just created has no versions: skip the read.
  const latest =
    secretState === 'created'
      ? undefined
      : await store.accessVersion(`${secretPath}/versions/latest`);
  if (latest && latest.data.equals(data)) {
    log.info('Secret version unchanged', { operation: 'compare-version', version: latest.name });
    return {
      secretPath,
      secret: secretState,
      version: 'unchanged',
      versionName: latest.name,
      verified: true,
      destroyedVersions: [],
    };
  }
  if (dryRun) {
    log.info('Dry run: would add a new version', { operation: 'add-secret-version' });
    return {
      secretPath,
      secret: secretState,
      version: 'added',
      versionName: '',
      verified: false,
      destroyedVersions: [],
    };
  }

  const checksum = crc32c(data);
  const added = await addVersionOnce(store, secretPath, data, checksum, options);
  log.info('Added secret version', { operation: 'add-secret-version', version: added });
  await verifyVersion(store, added, data, checksum);
  log.info('Verified secret version', {
    operation: 'verify-secret',
    version: added,
    bytes: data.length,
  });

  const destroyedVersions = await pruneAfterAdd(store, secretPath, {
    keep: target.retention,
    secretState,
    added,
    log,
  });
  return {
    secretPath,
    secret: secretState,
    version: 'added',
    versionName: added,
    verified: true,
    destroyedVersions,
  };
}

/** Reads the secret and creates it when missing (ALREADY_EXISTS from a concurrent job is fine). */
export async function ensureSecret(
  store: SecretStore,
  target: SecretManagerTarget,
  secretPath: string,
  { log, dryRun }: { log: Logger; dryRun: boolean },
): Promise<'created' | 'reused' | 'would-create'> {
  let current = await store.getSecret(secretPath);
  if (!current) {
    if (dryRun) return 'would-create';
    const created = await store.createSecret(target.projectId, target.secretId, {
      labels: target.labels,
      replication: target.replication,
    });
    if (created === 'created') {
      log.info('Created secret', { operation: 'create-secret' });
      return 'created';
    }
    log.info('Secret was created concurrently by another execution', {
      operation: 'create-secret',
    });
    current = await store.getSecret(secretPath);
  }
  if (current) assertOwned(secretPath, current.labels, target.clusterId);
  return 'reused';
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
 * Adds the version, retrying transient failures. Before each retry it re-reads `latest`: a call
 * that timed out may still have been applied, and adding again would create a duplicate version.
 */
async function addVersionOnce(
  store: SecretStore,
  secretPath: string,
  data: Buffer,
  checksum: number,
  options: SyncOptions,
): Promise<string> {
  return withRetry(
    async (attempt) => {
      if (attempt > 1) {
        const latest = await store.accessVersion(`${secretPath}/versions/latest`);
        if (latest?.data.equals(data)) return latest.name;
      }
      return (await store.addVersion(secretPath, data, checksum)).name;
    },
    {
      policy: options.retry,
      isRetryable: (error) => isFailureKind(error, 'transient'),
      onRetry: ({ retry, delayMs }) =>
        options.logger.warn('AddSecretVersion failed, checking before retrying', {
          phase: 'secret-manager',
          operation: 'add-secret-version',
          retry,
          delay_ms: delayMs,
        }),
    },
  );
}

async function verifyVersion(
  store: SecretStore,
  versionName: string,
  data: Buffer,
  checksum: number,
): Promise<void> {
  const readBack: VersionPayload | undefined = await store.accessVersion(versionName);
  const sameBytes = readBack?.data.equals(data) ?? false;
  const sameChecksum = readBack?.crc32c === undefined || readBack.crc32c === checksum;
  if (!sameBytes || !sameChecksum) {
    throw new TransientError(
      `Verification of ${versionName} failed: the version read back does not match what was written. The next execution will write it again.`,
      'VerificationFailed',
    );
  }
}
