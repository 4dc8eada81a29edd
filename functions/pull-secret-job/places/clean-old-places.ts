import { TransientError, type AdapterError } from '../../../shared/errors';
import type { Logger } from '../../../shared/logging/logger';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import { FOREIGN } from '../kubernetes/cluster-secrets';
import { changePlaces } from './place-record';
import { describePlace, samePlace, type Place } from './places';
import {
  asAdapterError,
  removePlaces,
  type KeptPlace,
  type RemovalDependencies,
  type RemovalReport,
  type RemovedPlace,
} from './remove-places';

export interface OldPlacesContext {
  readonly store: Parameters<typeof changePlaces>[0];
  readonly secretPath: string;
  readonly removal: RemovalDependencies;
  readonly retry: RetryPolicy;
  readonly logger: Logger;
}

// A lagging execution writes its Secret once; a second round removes what it wrote after our first.
const MAX_ROUNDS = 2;

/**
 * A move's cleanup: removes ours from each old place, forgets the places done, then reads each of
 * them again and records again any where ours is back.
 *
 * Why the read after forgetting: an older execution still running may write its target (one of our
 * old places) after we found it empty. It records that place again after its write, but our forget
 * can land after its record, and the Secret would then exist recorded nowhere: no later move or
 * delete would ever remove it. Reading after the forget closes that: a write before our read is
 * seen (recorded again, and removed in a second round unless a newer generation stamped it); a
 * write after our read comes after our forget, so the writer's own record after its write stands.
 * Deletes need no such read: a write racing a delete is withdrawn by its writer (claim-recheck.ts).
 */
export async function cleanOldPlaces(
  ctx: OldPlacesContext,
  places: readonly Place[],
): Promise<RemovalReport> {
  const removed: RemovedPlace[] = [];
  const kept: KeptPlace[] = [];
  const failed: { place: Place; error: AdapterError }[] = [];
  const record = { logger: ctx.logger, retry: ctx.retry, clusterId: ctx.removal.clusterId };
  let pending: Place[] = [...places];
  for (let round = 1; pending.length > 0; round++) {
    const report = await removePlaces(pending, ctx.removal);
    kept.push(...report.kept);
    failed.push(...report.failed);
    pending = [];
    if (ctx.removal.dryRun || report.removed.length === 0) {
      removed.push(...report.removed);
      break;
    }
    const forgotten = await changePlaces(
      ctx.store,
      ctx.secretPath,
      { remove: report.removed.map((r) => r.place) },
      record,
    );
    // `gone`: a delete holds the work and removes the record; it is the delete's to finish.
    if (forgotten === 'gone') {
      removed.push(...report.removed);
      break;
    }
    const back = await reappeared(ctx.removal, report.removed);
    removed.push(...report.removed.filter((r) => !back.some((b) => samePlace(b.place, r.place))));
    if (back.length === 0) break;
    await changePlaces(ctx.store, ctx.secretPath, { add: back.map((b) => b.place) }, record);
    ctx.logger.warn(
      `Ours was written again at ${back.map((b) => describePlace(b.place)).join(', ')} while we removed it (an earlier execution still running); recorded again`,
      { phase: 'kubernetes', operation: 'move', round },
    );
    for (const { place, error } of back) {
      if (error) failed.push({ place, error });
      else if (round === MAX_ROUNDS)
        failed.push({
          place,
          error: new TransientError(
            `ours keeps being written there again while it is removed (${MAX_ROUNDS} rounds)`,
            'KubernetesConflict',
          ),
        });
      else pending.push(place);
    }
  }
  return { removed, kept, failed };
}

/**
 * The places just forgotten where a Secret of ours exists again, or where it could not be read
 * (with the error: recorded again rather than guessed absent). `foreign` places are skipped: a
 * Secret we do not own is never overwritten, so ours cannot reappear there.
 */
async function reappeared(
  deps: RemovalDependencies,
  removed: readonly RemovedPlace[],
): Promise<{ place: Place; error?: AdapterError }[]> {
  const back: { place: Place; error?: AdapterError }[] = [];
  for (const { place, outcome } of removed) {
    if (outcome === 'foreign') continue;
    try {
      const secrets = await deps.clusterSecrets(place.cluster);
      const found = await secrets.probeOwn(place.namespace, place.name, deps.clusterId);
      if (found !== undefined && found !== FOREIGN) back.push({ place });
    } catch (error) {
      back.push({ place, error: asAdapterError(error) });
    }
  }
  return back;
}
