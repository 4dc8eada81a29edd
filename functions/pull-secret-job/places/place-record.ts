import { TransientError, isFailureKind } from '../../../shared/errors';
import type { Logger } from '../../../shared/logging/logger';
import { backoffDelayMs, type RetryPolicy } from '../../../shared/retry/backoff';
import {
  ANNOTATIONS_MAX_BYTES,
  annotationsBytes,
  annotationsWithPlaces,
  describePlace,
  placesFromAnnotations,
  recordedPlaces,
  type IgnoredPlace,
  type Place,
} from './places';
import { isOurSecretManagerSecret } from '../config/labels';
import type { SecretStore } from '../secret-manager/secret-store';
import { sleep } from '../../../shared/sleep';

// Each conflict means another writer changed the secret meanwhile; a few rounds settle any race.
const MAX_ROUNDS = 5;

/**
 * The places recorded on the secret; none, and `exists: false`, when it is absent or not ours
 * (labels.ts, isOurs). Entries that name no valid place are logged and ignored (places.ts).
 */
export async function readPlaces(
  store: SecretStore,
  secretPath: string,
  owner: { readonly clusterId: string; readonly logger: Logger },
): Promise<{ exists: boolean; recorded: Place[] }> {
  const secret = await store.getSecret(secretPath);
  if (!secret || !isOurSecretManagerSecret(secret.labels, owner.clusterId))
    return { exists: false, recorded: [] };
  const { places, ignored } = recordedPlaces(secret.annotations);
  if (ignored.length > 0) warnIgnored(owner.logger, secretPath, ignored);
  return { exists: true, recorded: places };
}

/** One warning for the record entries that name no valid place: they are never used. */
function warnIgnored(log: Logger, secretPath: string, ignored: readonly IgnoredPlace[]): void {
  // The values come from annotations the tenant can edit: quoted and bounded, never interpreted.
  const quote = (text: string) =>
    JSON.stringify(text.length > 300 ? `${text.slice(0, 300)}…` : text);
  log.warn(
    `Ignored ${ignored.length} recorded place(s) on ${secretPath} that name no valid place: ${ignored.map((i) => `${quote(i.value)} (${i.problem})`).join(', ')}. Nothing is read, written or deleted there; the annotations are left as they are (remove them by hand if they are not ours).`,
    {
      phase: 'places',
      operation: 'read-places',
      reason: 'InvalidRecordedPlace',
      annotation_keys: ignored.map((i) => i.key),
    },
  );
}

/**
 * Records and forgets places in the secret's annotations, written with the etag just read (as the
 * claim is, claim-work.ts): a conflict or a lost answer is never guessed at, the secret is read
 * again and the change applied again. `gone` when the secret was deleted meanwhile (a newer delete
 * holds the work) or is not ours for `clusterId` (a secret we do not own is never annotated).
 * Throws TransientError when the record would exceed Secret Manager's 16 KiB of
 * annotations (earlier places could not be cleaned; cleaning them shrinks it) or keeps changing.
 */
export async function changePlaces(
  store: SecretStore,
  secretPath: string,
  change: { readonly add?: readonly Place[]; readonly remove?: readonly Place[] },
  options: { logger: Logger; retry: RetryPolicy; clusterId: string },
): Promise<'updated' | 'unchanged' | 'gone'> {
  const log = options.logger.child({ phase: 'places', operation: 'record-places' });
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    const current = await store.getSecret(secretPath);
    if (!current || !isOurSecretManagerSecret(current.labels, options.clusterId)) return 'gone';
    const next = annotationsWithPlaces(current.annotations, change);
    if (sameAnnotations(current.annotations, next)) return 'unchanged';
    const bytes = annotationsBytes(next);
    if (bytes > ANNOTATIONS_MAX_BYTES)
      throw new TransientError(
        `Recording ${(change.add ?? []).map(describePlace).join(', ')} on ${secretPath} would take its annotations to ${bytes} bytes, over Secret Manager's 16 KiB: ${placesFromAnnotations(current.annotations).length} earlier places are still recorded because they could not be cleaned. Make those management clusters reachable; the next execution cleans them and retries.`,
        'PlaceRecordFull',
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
      log.info('Places recorded', {
        recorded: (change.add ?? []).map(describePlace),
        forgotten: (change.remove ?? []).map(describePlace),
      });
      return 'updated';
    }
    if (written === 'gone') return 'gone';
    log.info(
      written === 'conflict'
        ? 'The secret changed while we recorded places; reading it again'
        : 'Recording places failed without an answer; reading it again (it may have been applied)',
      { round },
    );
    if (written === 'no-answer') await sleep(backoffDelayMs(round, options.retry));
  }
  throw new TransientError(
    `Could not record the pull secret's places on ${secretPath} in ${MAX_ROUNDS} rounds of read and write (it kept changing, or Secret Manager did not answer). The next execution will try again.`,
    'PlaceRecordContention',
  );
}

function sameAnnotations(
  a: Readonly<Record<string, string>>,
  b: Readonly<Record<string, string>>,
): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}
