import { randomUUID } from 'node:crypto';
import type { JobResult } from '../../../shared/job-result';
import type { Logger } from '../../../shared/logging/logger';
import { describeClaim, type Claim } from '../../../shared/pull-secret/claim';
import { lostClaimIn } from './claim-step';
import { describeStale } from './cluster-check';
import {
  claimWork,
  logLost,
  recheckClaim,
  type ClaimOutcome,
  type ClaimTarget,
  type LostClaim,
} from './claim-work';
import type { JobConfig } from '../config/config';
import type { Replication, SecretMetadata, SecretStore } from '../secret-manager/secret-store';

export type { LostClaim };

export const isLost = (claim: ClaimOutcome | undefined): claim is LostClaim =>
  claim?.kind === 'duplicate' || claim?.kind === 'superseded';

/** Names direct runs (no CLOUD_RUN_EXECUTION) in a claim; unique per process. */
const DIRECT_RUN = `direct-run-${randomUUID().slice(0, 8)}`;

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
 * Claims this execution's work before the first write (claim-work.ts). Only executions launched by
 * the adapter (GENERATION set) claim: direct runs and dry runs have no generation to order by.
 * With `create`, a missing secret is created with the claim: an apply's secret, with `alongWith`
 * (the place the Kubernetes phase will write) recorded in it, or a delete's tombstone, with its
 * `ttlSeconds` (tombstone.ts).
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

/** The claim re-check on the secret as just read by the caller (claim-step.ts lostClaimIn). */
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
 * The result fields of an execution that stood aside, which nobody reports. `reached` says how far
 * it got before a claim re-check or the cluster check found it lost: nothing written, Secret
 * Manager written, or the Kubernetes Secret written too (the newer holder then cleans up the
 * earlier places, and what a delete's would have removed is withdrawn: claim-recheck.ts).
 */
export function lostClaimResult(
  lost: LostClaim,
  reached: 'nothing' | 'secret-manager' | 'kubernetes',
): Pick<JobResult, 'outcome' | 'reason' | 'message' | 'claim_holder'> {
  const holder = lost.cluster
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
    outcome: 'duplicate',
    reason: lost.kind === 'duplicate' ? 'DuplicateExecution' : 'SupersededExecution',
    message: `${lost.kind === 'duplicate' ? 'Duplicate' : 'Superseded'} execution: ${holder}, so this execution ${done}.`,
    ...(lost.holder ? { claim_holder: { ...lost.holder } } : {}),
  };
}
