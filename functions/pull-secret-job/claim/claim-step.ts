import {
  annotationsWithClaim,
  claimFromAnnotations,
  decideClaim,
  type Claim,
} from '../../../shared/pull-secret/claim';
import { isOurSecretManagerSecret } from '../config/labels';
import type { StaleCluster } from './cluster-check';
import { sameAnnotations, type AnnotationStep } from '../secret-manager/annotation-cas';
import type { Replication, SecretMetadata } from '../secret-manager/secret-store';

/** The secret to claim, and how to create it when it does not exist yet (apply only). */
export interface ClaimTarget {
  readonly projectId: string;
  readonly secretId: string;
  /** The cluster the secret must belong to: another's (or another component's) is never claimed. */
  readonly clusterId: string;
  /**
   * Create the secret with these when it does not exist, the creation being the claim: an apply's
   * secret, or a delete's tombstone (with `ttlSeconds`: tombstone.ts). Absent for direct runs'
   * deletes, which have no claim to leave.
   */
  readonly create?: {
    labels: Record<string, string>;
    replication: Replication;
    ttlSeconds?: number;
  };
  /**
   * For an apply with a Kubernetes phase: what else rides along with the claim's write (the place
   * it will write, added to the place record), so the record knows it before the write happens.
   */
  readonly alongWith?: (annotations: Readonly<Record<string, string>>) => Record<string, string>;
}

/** How the claim went. Only `claimed` and `unclaimed` may write anything. */
export type ClaimOutcome =
  /**
   * We hold the claim; `secret` says whether the claim created the secret; `written` is the secret
   * as the claim left it, whose etag the publication of a version is conditional on
   * (publish-version.ts), so publishing needs no read of its own.
   */
  | {
      readonly kind: 'claimed';
      readonly secret: 'created' | 'reused';
      readonly how: string;
      readonly written?: SecretMetadata;
    }
  /** Nothing to claim: the secret is not ours (the phases refuse it), or absent with nothing to create. */
  | { readonly kind: 'unclaimed'; readonly why: 'absent' | 'foreign' }
  /**
   * Another execution holds the claim for the same or newer work: write nothing (more). No holder
   * when the secret was deleted under us (a delete's tombstone expired) before a later write, or
   * when the cluster check stopped the run (`cluster`: the cluster is deleting, gone or newer).
   */
  | {
      readonly kind: 'duplicate' | 'superseded';
      readonly holder?: Claim;
      readonly cluster?: StaleCluster;
    };

/** A claim this execution does not hold: it stops and reports nothing. */
export type LostClaim = Extract<ClaimOutcome, { kind: 'duplicate' | 'superseded' }>;

/**
 * What claiming `mine` does with the secret as just read (decideClaim): create it with the claim
 * (CreateSecret is atomic: ALREADY_EXISTS means someone else was first), write the claim over an
 * older one, or stop. `alongWith` rides along in the same write; a claim already ours that it
 * would not change writes nothing.
 */
export function claimStep(
  current: SecretMetadata | undefined,
  mine: Claim,
  target: ClaimTarget,
): AnnotationStep<ClaimOutcome> {
  const withPlace = (annotations: Readonly<Record<string, string>>) =>
    target.alongWith ? target.alongWith(annotations) : annotations;
  if (!current) {
    if (!target.create) return { done: { kind: 'unclaimed', why: 'absent' } };
    return {
      create: { ...target.create, annotations: { ...withPlace(annotationsWithClaim({}, mine)) } },
      then: { kind: 'claimed', secret: 'created', how: 'created the secret with the claim' },
    };
  }
  // A foreign secret is never annotated: the phases refuse (apply) or leave (delete) it.
  if (!isOurSecretManagerSecret(current.labels, target.clusterId))
    return { done: { kind: 'unclaimed', why: 'foreign' } };
  const decision = decideClaim(claimFromAnnotations(current.annotations), mine);
  if (decision.kind === 'duplicate' || decision.kind === 'superseded') return { done: decision };
  const claimed: ClaimOutcome = {
    kind: 'claimed',
    secret: 'reused',
    how: decision.kind === 'hold' ? 'already held by this execution' : decision.why,
  };
  const next = withPlace(
    decision.kind === 'hold'
      ? current.annotations
      : annotationsWithClaim(current.annotations, mine),
  );
  return sameAnnotations(current.annotations, next)
    ? { done: claimed }
    : { update: { ...next }, then: claimed };
}

/**
 * The claim re-check on the secret as read: undefined while `mine` still holds the claim; else who
 * took it over (no holder: the secret was deleted meanwhile, or its claim removed).
 */
export function lostClaimIn(
  current: SecretMetadata | undefined,
  mine: Claim,
): LostClaim | undefined {
  const stored = claimFromAnnotations(current?.annotations);
  if (stored && decideClaim(stored, mine).kind === 'hold') return undefined;
  return { kind: 'superseded', ...(stored ? { holder: stored } : {}) };
}
