import type { AdapterError } from '../../shared/errors';
import type { Logger } from '../../shared/logging/logger';
import type { RetryPolicy } from '../../shared/retry/backoff';
import type { ClusterSecrets } from './cluster-secrets';
import type { JobConfig } from './config';
import type { LostClaim } from './job-claim';
import { changePlacements, readPlacements } from './placement-record';
import {
  describePlacement,
  planApply,
  planCleanup,
  samePlacement,
  type Placement,
} from './placements';
import { afterLostClaim } from './post-write-fence';
import { placementFailure, removePlacements, type RemovedPlacement } from './remove-placements';
import { syncKubernetesSecret, type KubernetesOutcome } from './sync-kubernetes';

/** What the Kubernetes phases need: the target, every cluster, and the record's secret. */
export interface PlacementContext {
  readonly kubernetes: NonNullable<JobConfig['kubernetes']>;
  readonly clusterId: string;
  readonly store: JobPlacementStore;
  readonly secretPath: string;
  readonly clusterSecrets: (managementCluster: string) => Promise<ClusterSecrets>;
  /** Re-reads the claim before removing anything: a newer generation's place must never be removed. */
  readonly fence: () => Promise<LostClaim | undefined>;
  readonly retry: RetryPolicy;
  readonly logger: Logger;
  readonly dryRun: boolean;
}
type JobPlacementStore = Parameters<typeof readPlacements>[0];

/** Where this execution puts the Kubernetes Secret. */
export const targetPlacement = (k: PlacementContext['kubernetes']): Placement => ({
  cluster: k.cluster,
  namespace: k.namespace,
  name: k.secretName,
});

/** The apply's Kubernetes phase: the Secret written, earlier places cleaned, the failure if any. */
export type PlacedSecret =
  | {
      readonly pushed: KubernetesOutcome;
      readonly cleaned: readonly RemovedPlacement[];
      readonly failure?: AdapterError;
    }
  /**
   * Written, then the claim was lost: a newer apply decides what is old now; after a delete (or the
   * secret gone) the Secret just written is `withdrawn` (removed if still ours), or it would leak.
   */
  | {
      readonly pushed: KubernetesOutcome;
      readonly lost: LostClaim;
      readonly withdrawn?: RemovedPlacement;
    };

/**
 * Writes the Secret to the target and removes ours from every other recorded place (a move to a
 * new cluster or namespace). Order: record the target (so a crash right after the write still
 * leaves it known), write it, remove the old ones, forget those removed. An old place that cannot
 * be reached stays recorded and is returned as the failure: the next execution cleans it.
 * `gone` when the secret was deleted meanwhile (a newer delete holds the work).
 */
export async function placeSecret(
  ctx: PlacementContext,
  desired: { labels: Record<string, string>; dockerConfigJson: Buffer; gcpSecretPath: string },
): Promise<PlacedSecret | 'gone'> {
  const target = targetPlacement(ctx.kubernetes);
  const plan = planApply(await readPlacements(ctx.store, ctx.secretPath), target);
  const record = { logger: ctx.logger, retry: ctx.retry };
  if (!ctx.dryRun && plan.record.length > 0) {
    const recorded = await changePlacements(
      ctx.store,
      ctx.secretPath,
      { add: plan.record },
      record,
    );
    if (recorded === 'gone') return 'gone';
  }
  const pushed = await syncKubernetesSecret(
    await ctx.clusterSecrets(target.cluster),
    {
      namespace: target.namespace,
      name: target.name,
      labels: desired.labels,
      dockerConfigJson: desired.dockerConfigJson,
      gcpSecretPath: desired.gcpSecretPath,
    },
    {
      logger: ctx.logger.child({ management_cluster: target.cluster }),
      dryRun: ctx.dryRun,
      namespaceWaitMs: ctx.kubernetes.namespaceWaitMs,
      retry: ctx.retry,
    },
  );
  if (!ctx.dryRun) {
    // A newer generation may have forgotten this place while we wrote it (it read the record
    // between our recording and our write): record it again, so that its next run removes it.
    const again = await changePlacements(ctx.store, ctx.secretPath, { add: [target] }, record);
    // Always re-check the claim after the write, not only before removing old places: a delete
    // that took the claim while we wrote has cleaned the places it read and is deleting the record,
    // so what we wrote would be left behind, recorded nowhere (post-write-fence.ts).
    const lost: LostClaim | undefined =
      again === 'gone' ? { kind: 'superseded' } : await ctx.fence();
    if (lost) {
      const withdrawn =
        afterLostClaim(lost) === 'withdraw' ? await withdraw(ctx, target) : undefined;
      return { pushed, lost, ...(withdrawn ? { withdrawn } : {}) };
    }
  }
  if (plan.remove.length === 0) return { pushed, cleaned: [] };
  ctx.logger.info(
    `Moving the pull secret: removing ours from ${plan.remove.length} earlier place(s)`,
    { phase: 'kubernetes', operation: 'move', management_cluster: target.cluster },
  );
  const report = await removePlacements(plan.remove, removalDeps(ctx));
  await forget(ctx, report.removed);
  const failure = placementFailure(report);
  return { pushed, cleaned: report.removed, ...(failure ? { failure } : {}) };
}

/** The delete's Kubernetes phase: the target's outcome and the other places', the failure if any. */
export interface CleanedPlacements {
  readonly target?: RemovedPlacement;
  readonly cleaned: readonly RemovedPlacement[];
  readonly failure?: AdapterError;
}

/**
 * Removes ours from every recorded place and the current target; forgets those removed. A target
 * on a management cluster the job does not know is dropped: nothing can have been written there
 * (an apply refuses it), and refusing the delete would keep every recorded place forever.
 */
export async function cleanPlacements(ctx: PlacementContext): Promise<CleanedPlacements> {
  const target = targetPlacement(ctx.kubernetes);
  const known = Object.hasOwn(ctx.kubernetes.clusters, target.cluster);
  if (!known)
    ctx.logger.warn(
      `The delete targets management cluster "${target.cluster}", which the pull secret job does not know (known: ${Object.keys(ctx.kubernetes.clusters).join(', ') || 'none'}); nothing was written there, so only the recorded places are cleaned`,
      { phase: 'kubernetes', operation: 'delete-secret', management_cluster: target.cluster },
    );
  const places = planCleanup(
    await readPlacements(ctx.store, ctx.secretPath),
    known ? target : undefined,
  );
  const report = await removePlacements(places, removalDeps(ctx));
  await forget(ctx, report.removed);
  const failure = placementFailure(report);
  const mine = report.removed.find((r) => samePlacement(r.place, target));
  return {
    ...(mine ? { target: mine } : {}),
    cleaned: report.removed.filter((r) => r !== mine),
    ...(failure ? { failure } : {}),
  };
}

/**
 * Removes the Secret just written after a delete took the work over. Best effort: a failure is
 * logged and the run still ends superseded (the delete, or the next one, owns the cleanup now).
 */
async function withdraw(
  ctx: PlacementContext,
  target: Placement,
): Promise<RemovedPlacement | undefined> {
  ctx.logger.warn(
    `A delete took the work over while we wrote; removing the ${describePlacement(target)} we just wrote`,
    { phase: 'kubernetes', operation: 'withdraw', management_cluster: target.cluster },
  );
  const report = await removePlacements([target], removalDeps(ctx));
  return report.removed[0];
}

function removalDeps(ctx: PlacementContext) {
  return {
    clusterSecrets: ctx.clusterSecrets,
    clusters: ctx.kubernetes.clusters,
    clusterId: ctx.clusterId,
    logger: ctx.logger,
    dryRun: ctx.dryRun,
  };
}

async function forget(ctx: PlacementContext, removed: readonly RemovedPlacement[]): Promise<void> {
  if (ctx.dryRun || removed.length === 0) return;
  // `gone`: a newer delete removed the secret, and the record with it; nothing left to forget.
  await changePlacements(
    ctx.store,
    ctx.secretPath,
    { remove: removed.map((r) => r.place) },
    { logger: ctx.logger, retry: ctx.retry },
  );
}
