import type { Logger } from '../../../shared/logging/logger';
import { afterLostClaim } from '../claim/claim-recheck';
import type { LostClaim } from '../claim/job-claim';
import type { JobConfig } from '../config/config';
import { unaliasVersions } from '../secret-manager/publish-version';
import type { SecretStore } from '../secret-manager/secret-store';
import type { JobDependencies, Progress } from './run-context';

/**
 * After an apply lost to a delete (its claim taken by one, or the cluster found deleting or gone),
 * destroys the version it added or adopted, even one it had published as `current`: the delete may
 * have listed the versions before ours landed (secret-manager/tombstone.ts), and nobody else would
 * ever destroy it, so the tombstone would hold the customer's pull secret again. Aliases naming it
 * go first (no version is destroyed while an alias names it: publish-version.ts). A secret this
 * run's claim created (the delete's tombstone had expired) gets the tombstone's ttl, so it does not
 * stay for good. A loss to a newer apply generation keeps the version (claim-recheck.ts; the
 * publication's own withdrawal is publish-version.ts). Best effort: the run ends superseded either
 * way, and a failure is logged.
 */
export async function withdrawAfterDelete(
  progress: Progress,
  lost: LostClaim,
  run: {
    config: JobConfig;
    deps: Pick<JobDependencies, 'secretStore'>;
    log: Logger;
    options: { dryRun: boolean };
  },
  createdSecret: boolean,
): Promise<LostClaim> {
  const { config, deps, log, options } = run;
  const stored = progress.stored;
  if (afterLostClaim(lost) !== 'withdraw' || stored?.version !== 'added' || options.dryRun)
    return lost;
  const store: SecretStore = deps.secretStore;
  const fields = {
    phase: 'secret-manager',
    operation: 'withdraw-version',
    version: stored.versionName,
  };
  try {
    await unaliasVersions(store, stored.secretPath, [stored.versionName], {
      logger: log,
      retry: config.retry,
    });
    // A version the delete destroyed first answers FAILED_PRECONDITION: done all the same.
    await store.destroyVersion(stored.versionName);
    progress.stored = {
      ...stored,
      destroyedVersions: [...stored.destroyedVersions, stored.versionName],
    };
    if (createdSecret) await store.expireAfter(stored.secretPath, config.tombstoneTtlSeconds);
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
