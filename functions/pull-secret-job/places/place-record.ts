import type { Logger } from '../../../shared/logging/logger';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import {
  describePlace,
  recordedPlaces,
  recordingPlaces,
  sameAnnotations,
  type IgnoredPlace,
  type Place,
} from './places';
import { isOurSecretManagerSecret } from '../config/labels';
import { writeAnnotations, type AnnotationStep } from '../secret-manager/annotation-cas';
import type { SecretMetadata, SecretStore } from '../secret-manager/secret-store';

/**
 * The places recorded on the secret; none, and `exists: false`, when it is absent or not ours
 * (labels.ts, isOurs). Entries that name no valid place are logged and ignored (places.ts).
 */
export async function readPlaces(
  store: SecretStore,
  secretPath: string,
  owner: { readonly clusterId: string; readonly logger: Logger },
): Promise<{ exists: boolean; recorded: Place[] }> {
  return placesIn(await store.getSecret(secretPath), secretPath, owner);
}

/** readPlaces on a secret already read. */
export function placesIn(
  secret: SecretMetadata | undefined,
  secretPath: string,
  owner: { readonly clusterId: string; readonly logger: Logger },
): { exists: boolean; recorded: Place[] } {
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
 * Records and forgets places in the secret's annotations through the one etag compare-and-swap
 * (annotation-cas.ts, as the claim is). `gone` when the secret was deleted meanwhile (a delete's
 * tombstone expired, or a person deleted it) or is not ours for `clusterId` (a secret we do not own is never annotated).
 * Throws TransientError when the record would exceed Secret Manager's 16 KiB of annotations
 * (recordingPlaces) or keeps changing. `first`: the secret as the caller has just read it.
 */
export async function changePlaces(
  store: SecretStore,
  secretPath: string,
  change: PlaceChange,
  options: {
    logger: Logger;
    retry: RetryPolicy;
    clusterId: string;
    first?: { current: SecretMetadata | undefined };
  },
): Promise<'updated' | 'unchanged' | 'gone'> {
  const log = options.logger.child({ phase: 'places', operation: 'record-places' });
  const written = await writeAnnotations(
    store,
    secretPath,
    {
      decide: (current) => placeRecordStep(current, change, options.clusterId, secretPath),
      what: 'the place record',
      contention: 'PlaceRecordContention',
    },
    { logger: log, retry: options.retry, ...(options.first ? { first: options.first } : {}) },
  );
  if (written === 'updated')
    log.info('Places recorded', {
      recorded: (change.add ?? []).map(describePlace),
      forgotten: (change.remove ?? []).map(describePlace),
    });
  return written;
}

type PlaceChange = { readonly add?: readonly Place[]; readonly remove?: readonly Place[] };

/** What a change of the place record does with the secret as just read. */
export function placeRecordStep(
  current: SecretMetadata | undefined,
  change: PlaceChange,
  clusterId: string,
  secretPath: string,
): AnnotationStep<'updated' | 'unchanged' | 'gone'> {
  if (!current || !isOurSecretManagerSecret(current.labels, clusterId)) return { done: 'gone' };
  const next = recordingPlaces(current.annotations, change, secretPath);
  return sameAnnotations(current.annotations, next)
    ? { done: 'unchanged' }
    : { update: next, then: 'updated' };
}
