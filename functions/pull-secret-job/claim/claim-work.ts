import type { Logger } from '../../../shared/logging/logger';
import { describeClaim, type Claim } from '../../../shared/pull-secret/claim';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import { writeAnnotationsSeen } from '../secret-manager/annotation-cas';
import type { SecretStore } from '../secret-manager/secret-store';
import {
  claimStep,
  lostClaimIn,
  type ClaimOutcome,
  type ClaimTarget,
  type LostClaim,
} from './claim-step';

export type { ClaimOutcome, ClaimTarget, LostClaim };

/**
 * Claims `mine` on the cluster's secret (claimStep) through the one etag compare-and-swap of the
 * job (annotation-cas.ts): read it, decide, write the claim (and the target place) with the etag
 * just read, or create the secret with them. A conflict or a lost answer is never guessed at.
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
  const { value: outcome, seen } = await writeAnnotationsSeen(
    store,
    secretPath,
    {
      decide: (current) => claimStep(current, mine, target),
      what: 'the claim',
      contention: 'ClaimContention',
    },
    { logger: log, retry: options.retry },
  );
  logOutcome(log, outcome, mine);
  return outcome.kind === 'claimed' && seen ? { ...outcome, written: seen } : outcome;
}

/**
 * Re-reads the claim before a later write that no read after a Kubernetes write serves (a delete's
 * phases, a newer generation's trace found): a relaunch or a newer generation may have taken it
 * over meanwhile, and this execution must then stop rather than overwrite newer work. Read-only.
 */
export async function recheckClaim(
  store: SecretStore,
  secretPath: string,
  mine: Claim,
  log: Logger,
): Promise<LostClaim | undefined> {
  const lost = lostClaimIn(await store.getSecret(secretPath), mine);
  if (lost) logLost(log, lost);
  return lost;
}

/** The warning of a claim re-check that found the claim taken over. */
export function logLost(log: Logger, lost: LostClaim): void {
  log.warn(
    lost.holder
      ? `Superseded before the next write: ${describeClaim(lost.holder)} holds the claim now`
      : 'Superseded before the next write: the secret was deleted meanwhile',
    { phase: 'claim', operation: 'claim-recheck', claim: 'superseded' },
  );
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
