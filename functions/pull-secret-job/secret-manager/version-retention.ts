import { grpcCode } from '../../../shared/gcp/grpc-failure';
import type { Logger } from '../../../shared/logging/logger';
import type { SecretStore } from './secret-store';

/**
 * SECRET_VERSION_RETENTION after a run added `added`: destroys the versions beyond the newest
 * `keep` (each kept version is billed monthly; docs/configuration.md, "Secret Manager versions").
 * Returns the destroyed versions' names.
 */
export async function pruneAfterAdd(
  store: SecretStore,
  secretPath: string,
  run: {
    keep: number | undefined;
    secretState: 'created' | 'reused';
    added: string;
    log: Logger;
  },
): Promise<string[]> {
  if (!needsRetention(run.keep, run.secretState, run.added)) return [];
  return applyRetentionOrWarn(store, secretPath, run.keep, run.log);
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
  const number = Number(/\/versions\/(\d+)$/.exec(added)?.[1] ?? Number.NaN);
  return !(number <= keep);
}

/**
 * Retention after the write it follows: a failure to prune costs money, not correctness, so it is
 * logged and the run goes on to deliver the pull secret (failing here would relaunch a run that
 * finds the bytes unchanged and never prunes either). The next added version prunes again.
 */
async function applyRetentionOrWarn(
  store: SecretStore,
  secretPath: string,
  keep: number,
  log: Logger,
): Promise<string[]> {
  try {
    return await applyRetention(store, secretPath, keep, log);
  } catch (error) {
    log.warn(
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

/** Destroys enabled or disabled versions older than the newest `keep`, since each kept version is billed. */
async function applyRetention(
  store: SecretStore,
  secretPath: string,
  keep: number,
  log: Logger,
): Promise<string[]> {
  const versions = await store.listVersions(secretPath);
  const live = versions.filter((v) => v.state !== 'DESTROYED').sort((a, b) => b.number - a.number);
  const doomed = live.slice(keep);
  for (const version of doomed) {
    await store.destroyVersion(version.name);
    log.info('Destroyed old secret version (SECRET_VERSION_RETENTION)', {
      operation: 'destroy-version',
      version: version.name,
    });
  }
  return doomed.map((v) => v.name);
}
