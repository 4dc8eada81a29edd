import type { AdapterError } from '../../shared/errors';
import type { LostClaim } from './job-claim';
import { legacyPlacements, reportable } from './legacy-placements';
import {
  forget,
  legacyWhere,
  removalDeps,
  targetPlacement,
  type PlacementContext,
} from './placement-context';
import { readPlacements } from './placement-record';
import { planCleanup, samePlacement } from './placements';
import {
  newerFailure,
  placementFailure,
  removePlacements,
  type KeptPlacement,
  type RemovedPlacement,
} from './remove-placements';

/** The delete's Kubernetes phase: the target's outcome and the other places', the failure if any. */
export interface CleanedPlacements {
  readonly target?: RemovedPlacement;
  readonly cleaned: readonly RemovedPlacement[];
  /** Places left as they are and still recorded (see KeptPlacement). */
  readonly kept: readonly KeptPlacement[];
  readonly failure?: AdapterError;
  /** A newer generation wrote one of the places: it holds the claim, this delete stands aside. */
  readonly lost?: LostClaim;
}

/**
 * Removes ours from every recorded place and the current target; forgets those removed. A target
 * on a management cluster the job does not know is dropped: nothing can have been written there
 * (an apply refuses it), and refusing the delete would keep every recorded place forever. A
 * recorded place on such a cluster is left with a warning (unconfiguredPlacementWarning).
 */
export async function cleanPlacements(ctx: PlacementContext): Promise<CleanedPlacements> {
  const target = targetPlacement(ctx.kubernetes);
  const known = Object.hasOwn(ctx.kubernetes.clusters, target.cluster);
  if (!known)
    ctx.logger.warn(
      `The delete targets management cluster "${target.cluster}", which the pull secret job does not know (known: ${Object.keys(ctx.kubernetes.clusters).join(', ') || 'none'}); nothing was written there, so only the recorded places are cleaned`,
      { phase: 'kubernetes', operation: 'delete-secret', management_cluster: target.cluster },
    );
  const state = await readPlacements(ctx.store, ctx.secretPath, ctx);
  const legacy = legacyPlacements({ ...state, createdNow: false }, legacyWhere(ctx, target));
  const places = planCleanup([...state.recorded, ...legacy], known ? target : undefined);
  const report = await removePlacements(places, removalDeps(ctx, 'delete'));
  await forget(ctx, report.removed);
  const newer = report.kept.filter((k) => k.why === 'newer');
  if (newer.length > 0) {
    const lost = await ctx.fence();
    if (lost) return { cleaned: [], kept: report.kept, lost };
  }
  const failure = placementFailure(report) ?? newerFailure(report.kept);
  const mine = report.removed.find((r) => samePlacement(r.place, target));
  return {
    ...(mine ? { target: mine } : {}),
    cleaned: report.removed.filter((r) => r !== mine && reportable(legacy, r)),
    kept: report.kept,
    ...(failure ? { failure } : {}),
  };
}
