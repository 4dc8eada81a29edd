import { grpcCode } from '../../../shared/gcp/grpc-failure';
import type { Logger } from '../../../shared/logging/logger';
import { versionNumber } from './publish-version';
import type { SecretStore } from './secret-store';

/**
 * SECRET_VERSION_RETENTION after a run added and published `added`: destroys the versions before
 * it beyond the newest `keep` (each kept version is billed monthly; docs/configuration.md, "Secret
 * Manager versions"). Never one an alias names (`aliased`, as the publication last saw the secret:
 * `current`, or a customer's), and never one numbered after `added`: a newer execution added it,
 * and it is that execution's to publish or withdraw. Returns the destroyed versions' names.
 */
export async function pruneAfterAdd(
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
  return !(versionNumber(added) <= keep);
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
  const mine = versionNumber(added);
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
