import { TransientError, isFailureKind } from '../../../shared/errors';
import type { Logger } from '../../../shared/logging/logger';
import {
  annotationsWithClaim,
  claimFromAnnotations,
  decideClaim,
  describeClaim,
  type Claim,
} from '../../../shared/pull-secret/claim';
import { backoffDelayMs, type RetryPolicy } from '../../../shared/retry/backoff';
import { isOurSecretManagerSecret } from '../config/labels';
import type { Replication, SecretMetadata, SecretStore } from '../secret-manager/secret-store';
import { sleep } from '../../../shared/sleep';

/** The secret to claim, and how to create it when it does not exist yet (apply only). */
export interface ClaimTarget {
  readonly projectId: string;
  readonly secretId: string;
  /** The cluster the secret must belong to: another's (or another component's) is never claimed. */
  readonly clusterId: string;
  /** For apply: create the secret with these, the creation being the claim. Absent for delete. */
  readonly create?: { labels: Record<string, string>; replication: Replication };
}

/** How the claim went. Only `claimed` and `unclaimed` may write anything. */
export type ClaimOutcome =
  /** We hold the claim; `secret` says whether the claim created the secret. */
  | { readonly kind: 'claimed'; readonly secret: 'created' | 'reused'; readonly how: string }
  /** Nothing to claim: a delete found no secret, or the secret is not ours (the phases refuse it). */
  | { readonly kind: 'unclaimed'; readonly why: 'absent' | 'foreign' }
  /**
   * Another execution holds the claim for the same or newer work: write nothing (more). No holder
   * when the secret was deleted under us (a newer delete) between the claim and a later write.
   */
  | { readonly kind: 'duplicate' | 'superseded'; readonly holder?: Claim };

/** A claim this execution does not hold: it stops and reports nothing. */
export type LostClaim = Extract<ClaimOutcome, { kind: 'duplicate' | 'superseded' }>;

// Each conflict means another execution wrote the claim meanwhile; a few rounds settle any race.
const MAX_ROUNDS = 5;

/**
 * Claims `mine` on the cluster's secret: read it, decide (decideClaim), then write the claim with
 * the etag just read (UpdateSecret) or, for a secret that does not exist, create it with the claim
 * (CreateSecret is atomic: ALREADY_EXISTS means someone else was first). A conflict or a lost answer
 * is never guessed at: the secret is read again and the decision taken again.
 */
export async function claimWork(
  store: SecretStore,
  target: ClaimTarget,
  mine: Claim,
  options: { logger: Logger; retry: RetryPolicy },
): Promise<ClaimOutcome> {
  const secretPath = `projects/${target.projectId}/secrets/${target.secretId}`;
  const log = options.logger.child({
    phase: 'claim',
    operation: 'claim',
    secret_name: target.secretId,
  });
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    // GetSecret and CreateSecret retry transient failures themselves (GoogleSecretStore).
    const current = await store.getSecret(secretPath);
    const outcome = current
      ? await claimExisting(store, { secretPath, clusterId: target.clusterId }, current, mine)
      : await claimByCreating(store, target, mine);
    if (typeof outcome !== 'string') {
      logOutcome(log, outcome, mine);
      return outcome;
    }
    log.info(
      outcome === 'conflict'
        ? 'The claim changed while we wrote ours; reading it again'
        : 'Writing the claim failed without an answer; reading it again (it may have been applied)',
      { round },
    );
    if (outcome === 'no-answer') await sleep(backoffDelayMs(round, options.retry));
  }
  throw new TransientError(
    `Could not claim ${secretPath} for ${describeClaim(mine)} in ${MAX_ROUNDS} rounds of read and write (it kept changing, or Secret Manager did not answer). The next execution will try again.`,
    'ClaimContention',
  );
}

async function claimExisting(
  store: SecretStore,
  { secretPath, clusterId }: { secretPath: string; clusterId: string },
  current: SecretMetadata,
  mine: Claim,
): Promise<ClaimOutcome | 'conflict' | 'no-answer'> {
  // A foreign secret is never annotated: the phases refuse (apply) or leave (delete) it.
  if (!isOurSecretManagerSecret(current.labels, clusterId))
    return { kind: 'unclaimed', why: 'foreign' };
  const stored = claimFromAnnotations(current.annotations);
  const decision = decideClaim(stored, mine);
  if (decision.kind === 'duplicate' || decision.kind === 'superseded') return decision;
  if (decision.kind === 'hold')
    return { kind: 'claimed', secret: 'reused', how: 'already held by this execution' };
  let written;
  try {
    written = await store.updateAnnotations(
      secretPath,
      annotationsWithClaim(current.annotations, mine),
      current.etag,
    );
  } catch (error) {
    // Not retried blindly: the update may have been applied; the next read tells.
    if (isFailureKind(error, 'transient')) return 'no-answer';
    throw error;
  }
  return written === 'updated'
    ? { kind: 'claimed', secret: 'reused', how: decision.why }
    : 'conflict';
}

async function claimByCreating(
  store: SecretStore,
  target: ClaimTarget,
  mine: Claim,
): Promise<ClaimOutcome | 'conflict'> {
  if (!target.create) return { kind: 'unclaimed', why: 'absent' };
  const created = await store.createSecret(target.projectId, target.secretId, {
    ...target.create,
    annotations: annotationsWithClaim(undefined, mine),
  });
  return created === 'created'
    ? { kind: 'claimed', secret: 'created', how: 'created the secret with the claim' }
    : 'conflict';
}

/**
 * Re-reads the claim just before a later write (the Kubernetes phase may start long after the
 * claim): a relaunch or a newer generation may have taken it over meanwhile, and this execution
 * must then stop rather than overwrite newer work. Read-only: a claim re-check never writes the claim.
 */
export async function recheckClaim(
  store: SecretStore,
  secretPath: string,
  mine: Claim,
  log: Logger,
): Promise<LostClaim | undefined> {
  const current = await store.getSecret(secretPath);
  const stored = claimFromAnnotations(current?.annotations);
  if (stored && decideClaim(stored, mine).kind === 'hold') return undefined;
  log.warn(
    stored
      ? `Superseded before the next write: ${describeClaim(stored)} holds the claim now`
      : 'Superseded before the next write: the secret was deleted meanwhile',
    { phase: 'claim', operation: 'claim-recheck', claim: 'superseded' },
  );
  return { kind: 'superseded', ...(stored ? { holder: stored } : {}) };
}

function logOutcome(log: Logger, outcome: ClaimOutcome, mine: Claim): void {
  if (outcome.kind === 'claimed')
    log.info(`Claimed ${describeClaim(mine)} (${outcome.how})`, { claim: 'claimed' });
  else if (outcome.kind === 'unclaimed')
    log.info(`Nothing to claim: the secret is ${outcome.why}`, { claim: 'unclaimed' });
  else
    log.info(
      `${outcome.kind === 'duplicate' ? 'Duplicate' : 'Superseded'} execution: ${outcome.holder ? describeClaim(outcome.holder) : 'nobody'} holds the claim, so this one writes nothing`,
      { claim: outcome.kind, claimed_by: outcome.holder?.execution ?? '' },
    );
}
