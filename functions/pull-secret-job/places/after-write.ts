import { afterLostClaim } from '../claim/claim-recheck';
import type { LostClaim } from '../claim/claim-step';
import { isOurSecretManagerSecret } from '../config/labels';
import type { AnnotationStep } from '../secret-manager/annotation-cas';
import type { SecretMetadata } from '../secret-manager/secret-store';
import {
  placesFromAnnotations,
  recordingPlaces,
  samePlace,
  uniquePlaces,
  type Place,
} from './places';

/** What the read after the Kubernetes write says: the claim lost, or the record to clean up from. */
export type AfterWrite = { readonly lost: LostClaim } | { readonly recorded: readonly Place[] };

/**
 * The one read after an apply's Kubernetes write serves every check that needs it:
 *
 * - the claim re-check: a delete that took the claim while we wrote has cleaned the places it read
 *   and forgot them (its tombstone keeps no record of our write), so what we wrote must be
 *   withdrawn (claim-recheck.ts);
 * - the target recorded again when it is missing: a newer generation may have forgotten this place
 *   while we wrote it (it read the record between our recording and our write), so that its next
 *   run removes it. The write is conditional on the etag of the read whose claim was checked: when
 *   it lands, that claim was in force, and a delete claiming after it reads a record with ours;
 * - the record the move's cleanup starts from (every place other than the target).
 *
 * `recheck` answers undefined for runs without a claim (direct runs). Pure: annotation-cas.ts does the I/O.
 */
export function afterWriteStep(
  current: SecretMetadata | undefined,
  target: Place,
  recheck: (current: SecretMetadata | undefined) => LostClaim | undefined,
  where: { readonly clusterId: string; readonly secretPath: string },
): AnnotationStep<AfterWrite> {
  const lost = recheck(current);
  if (lost && afterLostClaim(lost) === 'withdraw') return { done: { lost } };
  // Gone, or no longer ours: a newer delete holds the work and removed the record with it.
  if (!current || !isOurSecretManagerSecret(current.labels, where.clusterId))
    return { done: { lost: lost ?? { kind: 'superseded' } } };
  const recorded = placesFromAnnotations(current.annotations);
  const answer: AfterWrite = lost ? { lost } : { recorded: uniquePlaces([...recorded, target]) };
  if (recorded.some((p) => samePlace(p, target))) return { done: answer };
  return {
    update: recordingPlaces(current.annotations, { add: [target] }, where.secretPath),
    then: answer,
  };
}
