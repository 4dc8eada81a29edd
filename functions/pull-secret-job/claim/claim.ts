import { randomUUID } from 'node:crypto';
import type { JobResult } from '../../../shared/job-result';
import type { Logger } from '../../../shared/logging/logger';
import {
  annotationsWithClaim,
  claimFromAnnotations,
  decideClaim,
  describeClaim,
  type Claim,
} from '../../../shared/pull-secret/claim';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import type { JobConfig } from '../config/config';
import { isOurSecretManagerSecret } from '../config/labels';
import {
  sameAnnotations,
  writeAnnotationsSeen,
  type AnnotationStep,
} from '../secret-manager/annotation-cas';
import type { Replication, SecretMetadata, SecretStore } from '../secret-manager/secret-store';
import { describeNewerDefault, type NewerDefault } from '../kubernetes/default-version';
import { describeStale, type StaleCluster } from './cluster-check';

// The claim: which execution holds the work on the cluster's secret (the order of claims is
// shared/pull-secret/claim.ts). What an execution claims, how the claim is written (the one etag
// compare-and-swap of the job, annotation-cas.ts) and re-read before a later write, and what losing
// it means: what an apply does with what it wrote, and the result of an execution that stood aside.

/** The secret to claim, and how to create it when it does not exist yet (apply only). */
export interface ClaimTarget {
  readonly projectId: string;
  readonly secretId: string;
  /** The cluster the secret must belong to: another's (or another component's) is never claimed. */
  readonly clusterId: string;
  /**
   * Create the secret with these when it does not exist, the creation being the claim: an apply's
   * secret, or a delete's tombstone (with `ttlSeconds`: secret-manager/delete-pull-secret.ts).
   * Absent for direct runs' deletes, which have no claim to leave.
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
      /**
       * The Kubernetes Secret holds a newer platform default version at this generation (a
       * rotation wrote it: kubernetes/default-version.ts), so this run wrote nothing there.
       */
      readonly newerDefault?: NewerDefault;
    };

/** A claim this execution does not hold: it stops and reports nothing. */
export type LostClaim = Extract<ClaimOutcome, { kind: 'duplicate' | 'superseded' }>;

export const isLost = (claim: ClaimOutcome | undefined): claim is LostClaim =>
  claim?.kind === 'duplicate' || claim?.kind === 'superseded';

/** Names direct runs (no CLOUD_RUN_EXECUTION) in a claim; unique per process. */
const DIRECT_RUN = `direct-run-${randomUUID().slice(0, 8)}`;

/**
 * Claims this execution's work before the first write (claimWork). Only executions launched by
 * the adapter (GENERATION set) claim: direct runs and dry runs have no generation to order by.
 * With `create`, a missing secret is created with the claim: an apply's secret, with `alongWith`
 * (the place the Kubernetes phase will write) recorded in it, or a delete's tombstone, with its
 * `ttlSeconds` (secret-manager/delete-pull-secret.ts).
 */
export async function claimFor(
  config: JobConfig,
  store: SecretStore,
  options: { dryRun: boolean; logger: Logger },
  create?: {
    labels: Record<string, string>;
    replication: Replication;
    ttlSeconds?: number;
    alongWith?: ClaimTarget['alongWith'];
  },
): Promise<ClaimOutcome | undefined> {
  const mine = myClaim(config, options.dryRun);
  if (!mine) return undefined;
  return claimWork(
    store,
    {
      projectId: config.projectId,
      secretId: config.secretId,
      clusterId: config.clusterId,
      ...(create
        ? {
            create: {
              labels: create.labels,
              replication: create.replication,
              ...(create.ttlSeconds ? { ttlSeconds: create.ttlSeconds } : {}),
            },
          }
        : {}),
      ...(create?.alongWith ? { alongWith: create.alongWith } : {}),
    },
    mine,
    { logger: options.logger, retry: config.retry },
  );
}

/** The claim this execution works under; undefined for direct runs and dry runs (no generation). */
function myClaim(config: JobConfig, dryRun: boolean): Claim | undefined {
  if (dryRun || config.generation === undefined) return undefined;
  return {
    generation: config.generation,
    operation: config.operation,
    attempt: config.attempt ?? 1,
    execution: config.execution ?? DIRECT_RUN,
  };
}

/**
 * Claims `mine` on the cluster's secret (claimStep) through the one etag compare-and-swap of the
 * job (annotation-cas.ts): read it, decide, write the claim (and the target place) with the etag
 * just read, or create the secret with them. A conflict or a lost answer is never guessed at.
 */
async function claimWork(
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

/** Checks, before a later write, that no relaunch or newer generation took the claim over. */
export async function recheck(
  config: JobConfig,
  store: SecretStore,
  logger: Logger,
): Promise<LostClaim | undefined> {
  const mine = myClaim(config, false);
  if (!mine) return undefined;
  return recheckClaim(
    store,
    `projects/${config.projectId}/secrets/${config.secretId}`,
    mine,
    logger,
  );
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

/** The claim re-check on the secret as just read by the caller (lostClaimIn). */
export function recheckIn(
  config: JobConfig,
  current: SecretMetadata | undefined,
  logger: Logger,
): LostClaim | undefined {
  const mine = myClaim(config, false);
  const lost = mine ? lostClaimIn(current, mine) : undefined;
  if (lost) logLost(logger, lost);
  return lost;
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

/** The warning of a claim re-check that found the claim taken over. */
function logLost(log: Logger, lost: LostClaim): void {
  log.warn(
    lost.holder
      ? `Superseded before the next write: ${describeClaim(lost.holder)} holds the claim now`
      : 'Superseded before the next write: the secret was deleted meanwhile',
    { phase: 'claim', operation: 'claim-recheck', claim: 'superseded' },
  );
}

/**
 * What an apply does with what it has just written (the Kubernetes Secret, the Secret Manager
 * version it added) when a later check says it lost the work: the claim re-read after the
 * Kubernetes write, or the cluster check before it (cluster-check.ts).
 *
 * - `withdraw`: the secret (and the record of places with it) is gone, a delete holds the claim,
 *   or the cluster is being deleted. The delete may already have read the record, removed its
 *   places and destroyed the versions it listed, so nobody would ever remove what we wrote: we
 *   remove it ourselves (the Secret only if it carries our labels, the version only if we added
 *   it). A delete still running meets them absent or destroyed, which is success.
 * - `keep`: a newer apply generation or a relaunch of ours holds the claim. It may have written the
 *   very same place (same name, same labels), so removing ours could remove its Secret. The place
 *   was recorded again after our write, so that execution or the next one cleans it if it is old.
 *   Our write cannot have undone a newer generation's: it was conditional on a Secret not stamped
 *   newer (the generation stamp, kubernetes/sync-kubernetes.ts). And if the newer one forgot this
 *   place while we wrote, its read after forgetting finds ours and records it again
 *   (cleanOldPlaces, places/place-secret.ts).
 */
export type PostWriteAction = 'withdraw' | 'keep';

export function afterLostClaim(lost: LostClaim): PostWriteAction {
  // A newer default at the same generation: nothing was written there, the newer run keeps its own.
  if (lost.newerDefault) return 'keep';
  // The cluster check: a newer generation writes the same place and version itself (keep); a
  // deleting or gone cluster is the delete's case, whether or not its claim landed yet (withdraw).
  if (lost.cluster) return lost.cluster.kind === 'newer' ? 'keep' : 'withdraw';
  if (!lost.holder) return 'withdraw';
  return lost.holder.operation === 'delete' ? 'withdraw' : 'keep';
}

/**
 * The result fields of an execution that stood aside, which nobody reports. `reached` says how far
 * it got before a claim re-check or the cluster check found it lost: nothing written, Secret
 * Manager written, or the Kubernetes Secret written too (the newer holder then cleans up the
 * earlier places, and what a delete's would have removed is withdrawn: afterLostClaim).
 */
export function lostClaimResult(
  lost: LostClaim,
  reached: 'nothing' | 'secret-manager' | 'kubernetes',
): Pick<JobResult, 'outcome' | 'reason' | 'message' | 'claim_holder'> {
  const holder = lost.newerDefault
    ? describeNewerDefault(lost.newerDefault)
    : lost.cluster
      ? describeStale(lost.cluster)
      : lost.holder
        ? `the pull secret claim is held for ${describeClaim(lost.holder)}`
        : 'the secret was deleted meanwhile';
  const done =
    reached === 'nothing'
      ? 'wrote nothing'
      : reached === 'secret-manager'
        ? 'stopped before writing to Kubernetes'
        : 'stopped before removing the Secret from earlier places';
  return {
    outcome: 'stood-aside',
    reason: lost.kind === 'duplicate' ? 'DuplicateExecution' : 'SupersededExecution',
    message: `${lost.kind === 'duplicate' ? 'Duplicate' : 'Superseded'} execution: ${holder}, so this execution ${done}.`,
    ...(lost.holder ? { claim_holder: { ...lost.holder } } : {}),
  };
}
