import { TransientError, isFailureKind } from '../../shared/errors';
import type { Logger } from '../../shared/logging/logger';
import { backoffDelayMs, type RetryPolicy } from '../../shared/retry/backoff';
import {
  ANNOTATIONS_MAX_BYTES,
  annotationsBytes,
  annotationsWithPlacements,
  describePlacement,
  placementsFromAnnotations,
  type Placement,
} from './placements';
import { isOwnedByHyperfleet } from './labels';
import type { SecretStore } from './secret-store';

// Each conflict means another writer changed the secret meanwhile; a few rounds settle any race.
const MAX_ROUNDS = 5;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The places recorded on the secret; none, and `exists: false`, when it is absent or not ours. */
export async function readPlacements(
  store: SecretStore,
  secretPath: string,
): Promise<{ exists: boolean; recorded: Placement[] }> {
  const secret = await store.getSecret(secretPath);
  return secret && isOwnedByHyperfleet(secret.labels)
    ? { exists: true, recorded: placementsFromAnnotations(secret.annotations) }
    : { exists: false, recorded: [] };
}

/**
 * Records and forgets places in the secret's annotations, written with the etag just read (as the
 * claim is, claim-work.ts): a conflict or a lost answer is never guessed at, the secret is read
 * again and the change applied again. `gone` when the secret was deleted meanwhile (a newer delete
 * holds the work) or is not ours (a secret we do not own is never annotated).
 * Throws TransientError when the record would exceed Secret Manager's 16 KiB of
 * annotations (earlier places could not be cleaned; cleaning them shrinks it) or keeps changing.
 */
export async function changePlacements(
  store: SecretStore,
  secretPath: string,
  change: { readonly add?: readonly Placement[]; readonly remove?: readonly Placement[] },
  options: { logger: Logger; retry: RetryPolicy },
): Promise<'updated' | 'unchanged' | 'gone'> {
  const log = options.logger.child({ phase: 'placements', operation: 'record-placements' });
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    const current = await store.getSecret(secretPath);
    if (!current || !isOwnedByHyperfleet(current.labels)) return 'gone';
    const next = annotationsWithPlacements(current.annotations, change);
    if (sameAnnotations(current.annotations, next)) return 'unchanged';
    const bytes = annotationsBytes(next);
    if (bytes > ANNOTATIONS_MAX_BYTES)
      throw new TransientError(
        `Recording ${(change.add ?? []).map(describePlacement).join(', ')} on ${secretPath} would take its annotations to ${bytes} bytes, over Secret Manager's 16 KiB: ${placementsFromAnnotations(current.annotations).length} earlier places are still recorded because they could not be cleaned. Make those management clusters reachable; the next execution cleans them and retries.`,
        'PlacementRecordFull',
      );
    let written;
    try {
      written = await store.updateAnnotations(secretPath, next, current.etag);
    } catch (error) {
      // Not retried blindly: the update may have been applied; the next read tells.
      if (!isFailureKind(error, 'transient')) throw error;
      written = 'no-answer' as const;
    }
    if (written === 'updated') {
      log.info('Placements recorded', {
        recorded: (change.add ?? []).map(describePlacement),
        forgotten: (change.remove ?? []).map(describePlacement),
      });
      return 'updated';
    }
    if (written === 'gone') return 'gone';
    log.info(
      written === 'conflict'
        ? 'The secret changed while we recorded placements; reading it again'
        : 'Recording placements failed without an answer; reading it again (it may have been applied)',
      { round },
    );
    if (written === 'no-answer') await sleep(backoffDelayMs(round, options.retry));
  }
  throw new TransientError(
    `Could not record the pull secret's placements on ${secretPath} in ${MAX_ROUNDS} rounds of read and write (it kept changing, or Secret Manager did not answer). The next execution will try again.`,
    'PlacementRecordContention',
  );
}

function sameAnnotations(
  a: Readonly<Record<string, string>>,
  b: Readonly<Record<string, string>>,
): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}
