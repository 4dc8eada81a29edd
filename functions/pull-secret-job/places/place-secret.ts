import { keptByMigration } from '../../../shared/pull-secret/namespace-layout';
import { TransientError, type AdapterError } from '../../../shared/errors';
import type { Logger } from '../../../shared/logging/logger';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import { afterLostClaim, type LostClaim } from '../claim/claim';
import { isOurSecretManagerSecret } from '../config/labels';
import { FOREIGN } from '../kubernetes/cluster-secrets';
import { NewerDefaultError } from '../kubernetes/default-version';
import {
  NewerGenerationError,
  syncKubernetesSecret,
  type KubernetesOutcome,
} from '../kubernetes/sync-kubernetes';
import type { SecretSource } from '../kubernetes/secret-source';
import { writeAnnotations, type AnnotationStep } from '../secret-manager/annotation-cas';
import type { SecretMetadata } from '../secret-manager/secret-store';
import {
  changePlaces,
  describePlace,
  placesFromAnnotations,
  placesIn,
  planApply,
  readPlaces,
  recordingPlaces,
  samePlace,
  uniquePlaces,
  type Place,
} from './place-record';
import {
  asAdapterError,
  newerFailure,
  placeFailure,
  removalDeps,
  removePlaces,
  targetPlace,
  type KeptPlace,
  type PlaceContext,
  type RemovalDependencies,
  type RemovalReport,
  type RemovedPlace,
} from './remove-places';

// The apply's Kubernetes phase: write the Secret to the target, read the secret once after the
// write (the claim re-checked, the target recorded again if it was forgotten meanwhile), and after
// a move remove ours from the old places, reading them again after forgetting them.

/** The apply's Kubernetes phase: the Secret written, earlier places cleaned, the failure if any. */
export type PlacedSecret =
  | {
      readonly pushed: KubernetesOutcome;
      readonly cleaned: readonly RemovedPlace[];
      /** Earlier places left as they are and still recorded (see KeptPlace). */
      readonly kept: readonly KeptPlace[];
      readonly failure?: AdapterError;
    }
  /**
   * The claim was lost: a newer apply decides what is old now; after a delete (or the secret gone)
   * the Secret just written is `withdrawn` (removed if still ours), or it would leak. No `pushed`
   * when a newer generation had written the target first (nothing was written).
   */
  | {
      readonly pushed?: KubernetesOutcome;
      readonly lost: LostClaim;
      readonly withdrawn?: RemovedPlace;
    };

/**
 * Writes the Secret to the target and removes ours from every other recorded place (a move to a
 * new cluster or namespace). Order: record the target (so a crash right after the write still
 * leaves it known: with a claim, the claim's own write recorded it, claim/claim.ts), write it, read
 * the secret once (afterWriteStep), remove the old ones, forget those removed
 * (cleanOldPlaces). An old place that cannot be reached stays recorded and is returned as the
 * failure: the next execution cleans it. `gone` when the secret was deleted meanwhile (a delete's
 * tombstone expired, or a person deleted it). `claimed`: this execution holds a claim, which recorded the target.
 */
export async function placeSecret(
  ctx: PlaceContext,
  desired: {
    labels: Record<string, string>;
    dockerConfigJson: Buffer;
    /** Where its bytes are in Secret Manager (the annotations: run/tenant-copy.ts). */
    source: SecretSource;
    claimed: boolean;
  },
): Promise<PlacedSecret | 'gone'> {
  const target = targetPlace(ctx.kubernetes);
  const record = { logger: ctx.logger, retry: ctx.retry, clusterId: ctx.clusterId };
  // A dry run writes nothing: the record as it is says what a move would clean.
  const before = ctx.dryRun ? (await readPlaces(ctx.store, ctx.secretPath, ctx)).recorded : [];
  if (!ctx.dryRun && !desired.claimed) {
    const recorded = await changePlaces(ctx.store, ctx.secretPath, { add: [target] }, record);
    if (recorded === 'gone') return 'gone';
  }
  const pushed = await writeTarget(ctx, target, desired, record);
  if ('lost' in pushed) return pushed;
  const after = ctx.dryRun ? { recorded: before } : await readAfterWrite(ctx, target);
  if ('lost' in after) {
    const withdrawn =
      afterLostClaim(after.lost) === 'withdraw' ? await withdraw(ctx, target) : undefined;
    return { pushed, lost: after.lost, ...(withdrawn ? { withdrawn } : {}) };
  }
  const plan = planApply(after.recorded, target, (place) =>
    keptByMigration(ctx.kubernetes.layout, ctx.clusterId, place),
  );
  const retained = plan.retain.map((place): KeptPlace => ({ place, why: 'previous-layout' }));
  const old = plan.remove;
  if (old.length === 0) return { pushed, cleaned: [], kept: retained };
  ctx.logger.info(`Moving the pull secret: removing ours from ${old.length} earlier place(s)`, {
    phase: 'kubernetes',
    operation: 'move',
    management_cluster: target.cluster,
  });
  const report = await cleanOldPlaces(
    { store: ctx.store, secretPath: ctx.secretPath, removal: removalDeps(ctx, 'move'), ...record },
    old,
  );
  // A newer generation wrote one of our old places: it moved back there, and holds the claim.
  const lost = report.kept.some((k) => k.why === 'newer') ? await ctx.recheckClaim() : undefined;
  if (lost) return { pushed, lost };
  // No newer execution holds the claim, yet one of our old places is stamped newer: say so.
  const failure = placeFailure(report) ?? newerFailure(report.kept);
  return {
    pushed,
    cleaned: report.removed,
    kept: [...retained, ...report.kept],
    ...(failure ? { failure } : {}),
  };
}

/** The Kubernetes write; a newer generation that wrote the target first ends it `lost`. */
async function writeTarget(
  ctx: PlaceContext,
  target: Place,
  desired: { labels: Record<string, string>; dockerConfigJson: Buffer; source: SecretSource },
  record: Parameters<typeof changePlaces>[3],
): Promise<KubernetesOutcome | { lost: LostClaim }> {
  try {
    return await syncKubernetesSecret(
      await ctx.clusterSecrets(target.cluster),
      {
        namespace: target.namespace,
        name: target.name,
        labels: desired.labels,
        dockerConfigJson: desired.dockerConfigJson,
        source: desired.source,
        ...(ctx.generation !== undefined ? { generation: ctx.generation } : {}),
      },
      {
        logger: ctx.logger.child({ management_cluster: target.cluster }),
        dryRun: ctx.dryRun,
        namespaceWaitMs: ctx.kubernetes.namespaceWaitMs,
        retry: ctx.retry,
      },
    );
  } catch (error) {
    // This generation's run of a newer platform default wrote the target first (a rotation): it is
    // the newer work, whichever of us holds the claim; we wrote nothing there.
    if (error instanceof NewerDefaultError) {
      ctx.logger.warn(`Superseded before the Kubernetes write: ${error.message}`, {
        phase: 'kubernetes',
        operation: 'default-version-check',
        management_cluster: target.cluster,
      });
      return { lost: { kind: 'superseded', newerDefault: error.newer } };
    }
    // A newer generation wrote the target before our write: it holds the claim.
    if (error instanceof NewerGenerationError) {
      const lost = await ctx.recheckClaim();
      if (lost) return { lost };
      throw error;
    }
    // The write may have landed with its answer lost: record the target again, as after a write
    // that answered (afterWriteStep), so a newer generation that forgot it meanwhile removes it.
    if (!ctx.dryRun) await recordAgainBestEffort(ctx, target, record);
    throw error;
  }
}

/** Re-records the target after a write that failed; its own failure is logged, never thrown. */
async function recordAgainBestEffort(
  ctx: PlaceContext,
  target: Place,
  record: Parameters<typeof changePlaces>[3],
): Promise<void> {
  try {
    await changePlaces(ctx.store, ctx.secretPath, { add: [target] }, record);
  } catch (error) {
    ctx.logger.warn(
      `Could not record the ${describePlace(target)} again after its write failed: ${error instanceof Error ? error.message : String(error)}`,
      { phase: 'kubernetes', operation: 'record-place', management_cluster: target.cluster },
    );
  }
}

/** The one read after the write (afterWriteStep), its ignored entries logged (place-record.ts). */
async function readAfterWrite(ctx: PlaceContext, target: Place): Promise<AfterWrite> {
  const current = await ctx.store.getSecret(ctx.secretPath);
  placesIn(current, ctx.secretPath, ctx);
  return writeAnnotations(
    ctx.store,
    ctx.secretPath,
    {
      decide: (read) => afterWriteStep(read, target, ctx.recheckIn, ctx),
      what: 'the place record',
      contention: 'PlaceRecordContention',
    },
    {
      logger: ctx.logger.child({ phase: 'places', operation: 'record-places' }),
      retry: ctx.retry,
      first: { current },
    },
  );
}

/** What the read after the Kubernetes write says: the claim lost, or the record to clean up from. */
export type AfterWrite = { readonly lost: LostClaim } | { readonly recorded: readonly Place[] };

/**
 * The one read after an apply's Kubernetes write serves every check that needs it:
 *
 * - the claim re-check: a delete that took the claim while we wrote has cleaned the places it read
 *   and forgot them (its tombstone keeps no record of our write), so what we wrote must be
 *   withdrawn (afterLostClaim, claim/claim.ts);
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

/**
 * Removes the Secret just written after a delete took the work over. Best effort: a failure is
 * logged and the run still ends superseded (the delete, or the next one, owns the cleanup now).
 * A Secret a newer generation stamped meanwhile is not ours to withdraw and stays.
 */
async function withdraw(ctx: PlaceContext, target: Place): Promise<RemovedPlace | undefined> {
  ctx.logger.warn(
    `A delete took the work over while we wrote; removing the ${describePlace(target)} we just wrote`,
    { phase: 'kubernetes', operation: 'withdraw', management_cluster: target.cluster },
  );
  const report = await removePlaces([target], removalDeps(ctx, 'delete'));
  return report.removed[0];
}

interface OldPlacesContext {
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
 * Deletes need no such read: a write racing a delete is withdrawn by its writer (afterLostClaim, claim/claim.ts).
 */
async function cleanOldPlaces(
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
