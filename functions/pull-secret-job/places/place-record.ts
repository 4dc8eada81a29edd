import { createHash } from 'node:crypto';
import { TransientError } from '../../../shared/errors';
import type { Logger } from '../../../shared/logging/logger';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import { isOurSecretManagerSecret } from '../config/labels';
import { MANAGEMENT_CLUSTER_NAME } from '../config/management-clusters';
import {
  sameAnnotations,
  writeAnnotations,
  type AnnotationStep,
} from '../secret-manager/annotation-cas';
import type { SecretMetadata, SecretStore } from '../secret-manager/secret-store';

// The place record: every place the job wrote the Kubernetes Secret to, kept in the Secret Manager
// secret's annotations (PLACED_PREFIX). What a place is, how it is written in an annotation and
// validated when read back (the tenant can edit it), reading and changing the record through the
// one etag compare-and-swap, and the plans an apply and a delete make from it.

/** One place the job wrote the Kubernetes Secret to. */
export interface Place {
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
}

export const describePlace = (p: Place) =>
  `Secret ${p.namespace}/${p.name} on management cluster ${p.cluster}`;

export const samePlace = (a: Place, b: Place) =>
  a.cluster === b.cluster && a.namespace === b.namespace && a.name === b.name;

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

/** The annotation key of a place: the prefix and 16 hex digits of the place's SHA-256. */
export function placeKey(p: Place): string {
  const digest = createHash('sha256').update(`${p.cluster}/${p.namespace}/${p.name}`).digest('hex');
  return `${PLACED_PREFIX}${digest.slice(0, 16)}`;
}

/**
 * The places recorded on the secret; none, and `exists: false`, when it is absent or not ours
 * (labels.ts, isOurs). Entries that name no valid place are logged and ignored (recordedPlaces).
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

/** A `hyperfleet.io-placed-*` annotation that cannot be used as a place, and why. */
export interface IgnoredPlace {
  readonly key: string;
  readonly value: string;
  readonly problem: string;
}

/**
 * The places recorded in a secret's annotations, and the entries ignored: unreadable, with a key
 * that does not match the value, or naming something that is not a valid cluster, namespace or
 * Secret name (placeNameProblem: the tenant can edit these annotations). Ignored entries are kept
 * as they are and never used for a read, a write or a delete.
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

// A recorded place is read back from the Secret Manager secret's annotations, in the tenant's
// project: the tenant can edit it. Each part becomes a segment of a Kubernetes API path
// (/api/v1/namespaces/{namespace}/secrets/{name}) on the management cluster {cluster}, so a part
// that is not a valid name, `..` above all, would reach another path. Only names Kubernetes itself
// accepts are used; anything else is ignored (never written, read or deleted).

/** A namespace: a DNS label (RFC 1123), at most 63 characters. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** A Secret name: a DNS subdomain (RFC 1123): DNS labels joined by dots, at most 253 characters. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Why a recorded place cannot be used, or undefined when all three of its names are valid. */
export function placeNameProblem(place: Place): string | undefined {
  const problems: string[] = [];
  if (!MANAGEMENT_CLUSTER_NAME.test(place.cluster))
    problems.push('the management cluster name is not a DNS label');
  if (!DNS_LABEL.test(place.namespace)) problems.push('the namespace is not a DNS label');
  if (place.name.length > 253 || !DNS_SUBDOMAIN.test(place.name))
    problems.push('the Secret name is not a DNS subdomain');
  return problems.length ? problems.join('; ') : undefined;
}

/** The valid places recorded in a secret's annotations (recordedPlaces, without the ignored). */
export function placesFromAnnotations(
  annotations: Readonly<Record<string, string>> | undefined,
): Place[] {
  return recordedPlaces(annotations).places;
}

/** Places to record and places to forget, in one change of the record. */
type PlaceChange = { readonly add?: readonly Place[]; readonly remove?: readonly Place[] };

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

/**
 * annotationsWithPlaces, refused when the record would exceed Secret Manager's 16 KiB of annotations
 * (earlier places could not be cleaned; cleaning them shrinks it): a TransientError.
 */
export function recordingPlaces(
  annotations: Readonly<Record<string, string>>,
  change: PlaceChange,
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

/** The annotations with `add` recorded and `remove` forgotten; every other annotation kept. */
export function annotationsWithPlaces(
  annotations: Readonly<Record<string, string>> | undefined,
  change: PlaceChange,
): Record<string, string> {
  const next: Record<string, string> = { ...(annotations ?? {}) };
  for (const place of change.remove ?? []) delete next[placeKey(place)];
  for (const place of change.add ?? [])
    next[placeKey(place)] = `${place.cluster}/${place.namespace}/${place.name}`;
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
 * `retained` places are neither removed nor forgotten: while a namespace layout migration keeps
 * the previous layout's copy (shared/pull-secret/namespace-layout.ts), HyperShift's HostedCluster
 * may still reference it until it follows the new status.
 */
export interface ApplyPlan {
  readonly record: readonly Place[];
  readonly write: Place;
  readonly remove: readonly Place[];
  readonly retain: readonly Place[];
}

export function planApply(
  recorded: readonly Place[],
  target: Place,
  retained: (place: Place) => boolean = () => false,
): ApplyPlan {
  const isRecorded = (place: Place) => recorded.some((p) => samePlace(p, place));
  const others = uniquePlaces(recorded.filter((place) => !samePlace(place, target)));
  return {
    record: isRecorded(target) ? [] : [target],
    write: target,
    remove: others.filter((place) => !retained(place)),
    retain: others.filter(retained),
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
