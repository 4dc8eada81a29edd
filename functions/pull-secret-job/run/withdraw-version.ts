import type { Logger } from '../../../shared/logging/logger';
import { afterLostClaim } from '../claim/claim-recheck';
import type { LostClaim } from '../claim/job-claim';
import type { SecretStore } from '../secret-manager/secret-store';
import type { Progress } from './job-run';

/**
 * After an apply lost to a delete (its claim taken by one, or the cluster found deleting or gone),
 * destroys the version it added: the delete may have listed the versions before ours landed
 * (secret-manager/tombstone.ts), and nobody else would ever destroy it, so the tombstone would
 * hold the customer's pull secret again. A loss to a newer apply generation keeps it
 * (claim-recheck.ts). Best effort: the run ends superseded either way, and a failure is logged.
 */
export async function withdrawVersion(
  store: SecretStore,
  progress: Progress,
  lost: LostClaim,
  { log, options }: { log: Logger; options: { dryRun: boolean } },
): Promise<LostClaim> {
  const stored = progress.stored;
  if (afterLostClaim(lost) !== 'withdraw' || stored?.version !== 'added' || options.dryRun)
    return lost;
  const fields = {
    phase: 'secret-manager',
    operation: 'withdraw-version',
    version: stored.versionName,
  };
  try {
    // A version the delete destroyed first answers FAILED_PRECONDITION: done all the same.
    await store.destroyVersion(stored.versionName);
    progress.stored = {
      ...stored,
      destroyedVersions: [...stored.destroyedVersions, stored.versionName],
    };
    log.warn(
      `The cluster's pull secret is being removed: destroyed ${stored.versionName}, which this run had added`,
      fields,
    );
  } catch (error) {
    log.warn(
      `Could not destroy ${stored.versionName} after losing to a delete: ${error instanceof Error ? error.message : String(error)}`,
      fields,
    );
  }
  return lost;
}
