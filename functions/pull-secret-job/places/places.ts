import { createHash } from 'node:crypto';
import { TransientError } from '../../../shared/errors';
import { sameAnnotations } from '../secret-manager/annotation-cas';

export { sameAnnotations };
import { placeNameProblem } from './place-names';

/** One place the job wrote the Kubernetes Secret to. */
export interface Place {
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
}

/**
 * The record of places (the place record) lives in the Secret Manager secret's annotations, one per place, so
 * cleanup knows every place without scanning every cluster. Secret Manager annotation keys are
 * 1-63 characters of letters, digits, `-`, `_`, `.` (no `/`), beginning and ending with a letter or
 * digit; a cluster name alone can be 63 characters, so the key carries a hash of the place and the
 * value the place itself (`cluster/namespace/name`; none of the three may contain `/`).
 */
export const PLACED_PREFIX = 'hyperfleet.io-placed-';

/**
 * Secret Manager: "The total size of annotation keys and values must be less than 16KiB." The claim
 * takes about 150 bytes and a place at most about 420 (63 + 63 + 253 and the key), so dozens fit;
 * the record only grows while earlier places cannot be cleaned.
 */
export const ANNOTATIONS_MAX_BYTES = 16 * 1024 - 1;

export const describePlace = (p: Place) =>
  `Secret ${p.namespace}/${p.name} on management cluster ${p.cluster}`;

export const samePlace = (a: Place, b: Place) =>
  a.cluster === b.cluster && a.namespace === b.namespace && a.name === b.name;

/** The annotation key of a place: the prefix and 16 hex digits of the place's SHA-256. */
export function placeKey(p: Place): string {
  const digest = createHash('sha256').update(`${p.cluster}/${p.namespace}/${p.name}`).digest('hex');
  return `${PLACED_PREFIX}${digest.slice(0, 16)}`;
}

/** A `hyperfleet.io-placed-*` annotation that cannot be used as a place, and why. */
export interface IgnoredPlace {
  readonly key: string;
  readonly value: string;
  readonly problem: string;
}

/**
 * The places recorded in a secret's annotations, and the entries ignored: unreadable, with a key
 * that does not match the value, or naming something that is not a valid cluster, namespace or
 * Secret name (place-names.ts: the tenant can edit these annotations). Ignored entries are kept as
 * they are and never used for a read, a write or a delete.
 */
export function recordedPlaces(annotations: Readonly<Record<string, string>> | undefined): {
  places: Place[];
  ignored: IgnoredPlace[];
} {
  const places: Place[] = [];
  const ignored: IgnoredPlace[] = [];
  for (const [key, value] of Object.entries(annotations ?? {})) {
    if (!key.startsWith(PLACED_PREFIX)) continue;
    const read = readPlace(key, value);
    if (typeof read === 'string') ignored.push({ key, value, problem: read });
    else places.push(read);
  }
  return { places: places.sort(byPlace), ignored };
}

/** The place an entry records, or why it cannot be used. */
function readPlace(key: string, value: string): Place | string {
  const [cluster, namespace, name, ...rest] = value.split('/');
  if (cluster === undefined || namespace === undefined || name === undefined || rest.length > 0)
    return 'it is not cluster/namespace/name';
  const place = { cluster, namespace, name };
  return (
    placeNameProblem(place) ??
    (placeKey(place) === key ? place : 'its key is not the hash of its value')
  );
}

/** The valid places recorded in a secret's annotations (recordedPlaces, without the ignored). */
export function placesFromAnnotations(
  annotations: Readonly<Record<string, string>> | undefined,
): Place[] {
  return recordedPlaces(annotations).places;
}

/** The annotations with `add` recorded and `remove` forgotten; every other annotation kept. */
export function annotationsWithPlaces(
  annotations: Readonly<Record<string, string>> | undefined,
  change: { readonly add?: readonly Place[]; readonly remove?: readonly Place[] },
): Record<string, string> {
  const next: Record<string, string> = { ...(annotations ?? {}) };
  for (const place of change.remove ?? []) delete next[placeKey(place)];
  for (const place of change.add ?? [])
    next[placeKey(place)] = `${place.cluster}/${place.namespace}/${place.name}`;
  return next;
}

/**
 * annotationsWithPlaces, refused when the record would exceed Secret Manager's 16 KiB of annotations
 * (earlier places could not be cleaned; cleaning them shrinks it): a TransientError.
 */
export function recordingPlaces(
  annotations: Readonly<Record<string, string>>,
  change: { readonly add?: readonly Place[]; readonly remove?: readonly Place[] },
  secretPath: string,
): Record<string, string> {
  const next = annotationsWithPlaces(annotations, change);
  const bytes = annotationsBytes(next);
  if (bytes > ANNOTATIONS_MAX_BYTES)
    throw new TransientError(
      `Recording ${(change.add ?? []).map(describePlace).join(', ')} on ${secretPath} would take its annotations to ${bytes} bytes, over Secret Manager's 16 KiB: ${placesFromAnnotations(annotations).length} earlier places are still recorded because they could not be cleaned. Make those management clusters reachable; the next execution cleans them and retries.`,
      'PlaceRecordFull',
    );
  return next;
}

/** Bytes of all keys and values, as Secret Manager counts them against its limit. */
export function annotationsBytes(annotations: Readonly<Record<string, string>>): number {
  let total = 0;
  for (const [key, value] of Object.entries(annotations))
    total += Buffer.byteLength(key) + Buffer.byteLength(value);
  return total;
}

/**
 * An apply's plan: record the target before writing it (a crash after the write still leaves it
 * known), write it, then remove ours from every other recorded place, then forget those places.
 */
export interface ApplyPlan {
  readonly record: readonly Place[];
  readonly write: Place;
  readonly remove: readonly Place[];
}

export function planApply(recorded: readonly Place[], target: Place): ApplyPlan {
  const isRecorded = (place: Place) => recorded.some((p) => samePlace(p, place));
  const others = (place: Place) => !samePlace(place, target);
  return {
    record: isRecorded(target) ? [] : [target],
    write: target,
    remove: uniquePlaces(recorded.filter(others)),
  };
}

/** A delete's plan: every recorded place and the current target, each once. */
export function planCleanup(recorded: readonly Place[], current?: Place): Place[] {
  return uniquePlaces([...recorded, ...(current ? [current] : [])]);
}

/** Each place once, in a stable order (cluster, namespace, name). */
export function uniquePlaces(places: readonly Place[]): Place[] {
  const unique: Place[] = [];
  for (const place of places) if (!unique.some((p) => samePlace(p, place))) unique.push(place);
  return unique.sort(byPlace);
}

function byPlace(a: Place, b: Place): number {
  return (
    a.cluster.localeCompare(b.cluster) ||
    a.namespace.localeCompare(b.namespace) ||
    a.name.localeCompare(b.name)
  );
}
