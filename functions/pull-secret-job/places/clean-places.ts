import type { AdapterError } from '../../../shared/errors';
import type { LostClaim } from '../claim/job-claim';
import { forget, removalDeps, targetPlace, type PlaceContext } from './place-context';
import { readPlaces } from './place-record';
import { planCleanup, samePlace } from './places';
import {
  newerFailure,
  placeFailure,
  removePlaces,
  type KeptPlace,
  type RemovedPlace,
} from './remove-places';

/** The delete's Kubernetes phase: the target's outcome and the other places', the failure if any. */
export interface CleanedPlaces {
  readonly target?: RemovedPlace;
  readonly cleaned: readonly RemovedPlace[];
  /** Places left as they are and still recorded (see KeptPlace). */
  readonly kept: readonly KeptPlace[];
  readonly failure?: AdapterError;
  /** A newer generation wrote one of the places: it holds the claim, this delete stands aside. */
  readonly lost?: LostClaim;
}

/**
 * Removes ours from every recorded place and the current target; forgets those removed. A target
 * on a management cluster the job does not know is dropped: nothing can have been written there
 * (an apply refuses it), and refusing the delete would keep every recorded place forever. A
 * recorded place on such a cluster is left with a warning (unconfiguredPlaceWarning).
 */
export async function cleanPlaces(ctx: PlaceContext): Promise<CleanedPlaces> {
  const target = targetPlace(ctx.kubernetes);
  const known = Object.hasOwn(ctx.kubernetes.clusters, target.cluster);
  if (!known)
    ctx.logger.warn(
      `The delete targets management cluster "${target.cluster}", which the pull secret job does not know (known: ${Object.keys(ctx.kubernetes.clusters).join(', ') || 'none'}); nothing was written there, so only the recorded places are cleaned`,
      { phase: 'kubernetes', operation: 'delete-secret', management_cluster: target.cluster },
    );
  const state = await readPlaces(ctx.store, ctx.secretPath, ctx);
  const places = planCleanup(state.recorded, known ? target : undefined);
  const report = await removePlaces(places, removalDeps(ctx, 'delete'));
  await forget(ctx, report.removed);
  const newer = report.kept.filter((k) => k.why === 'newer');
  if (newer.length > 0) {
    const lost = await ctx.recheckClaim();
    if (lost) return { cleaned: [], kept: report.kept, lost };
  }
  const failure = placeFailure(report) ?? newerFailure(report.kept);
  const mine = report.removed.find((r) => samePlace(r.place, target));
  return {
    ...(mine ? { target: mine } : {}),
    cleaned: report.removed.filter((r) => r !== mine),
    kept: report.kept,
    ...(failure ? { failure } : {}),
  };
}
