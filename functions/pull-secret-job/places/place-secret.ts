import type { AdapterError } from '../../../shared/errors';
import { cleanOldPlaces } from './clean-old-places';
import { NewerGenerationError } from '../kubernetes/generation-stamp';
import type { LostClaim } from '../claim/job-claim';
import { removalDeps, targetPlace, type PlaceContext } from './place-context';
import { afterWriteStep, type AfterWrite } from './after-write';
import { changePlaces, placesIn, readPlaces } from './place-record';
import { writeAnnotations } from '../secret-manager/annotation-cas';
import { describePlace, planApply, type Place } from './places';
import { afterLostClaim } from '../claim/claim-recheck';
import {
  removePlaces,
  newerFailure,
  placeFailure,
  type KeptPlace,
  type RemovedPlace,
} from './remove-places';
import { syncKubernetesSecret, type KubernetesOutcome } from '../kubernetes/sync-kubernetes';

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
 * leaves it known: with a claim, the claim's own write recorded it, claim-step.ts), write it, read
 * the secret once (after-write.ts), remove the old ones, forget those removed
 * (clean-old-places.ts). An old place that cannot be reached stays recorded and is returned as the
 * failure: the next execution cleans it. `gone` when the secret was deleted meanwhile (a delete's
 * tombstone expired, or a person deleted it). `claimed`: this execution holds a claim, which recorded the target.
 */
export async function placeSecret(
  ctx: PlaceContext,
  desired: {
    labels: Record<string, string>;
    dockerConfigJson: Buffer;
    gcpSecretPath: string;
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
  const old = planApply(after.recorded, target).remove;
  if (old.length === 0) return { pushed, cleaned: [], kept: [] };
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
  return { pushed, cleaned: report.removed, kept: report.kept, ...(failure ? { failure } : {}) };
}

/** The Kubernetes write; a newer generation that wrote the target first ends it `lost`. */
async function writeTarget(
  ctx: PlaceContext,
  target: Place,
  desired: { labels: Record<string, string>; dockerConfigJson: Buffer; gcpSecretPath: string },
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
        gcpSecretPath: desired.gcpSecretPath,
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
    // A newer generation wrote the target before our write: it holds the claim.
    if (error instanceof NewerGenerationError) {
      const lost = await ctx.recheckClaim();
      if (lost) return { lost };
      throw error;
    }
    // The write may have landed with its answer lost: record the target again, as after a write
    // that answered (after-write.ts), so a newer generation that forgot it meanwhile removes it.
    if (!ctx.dryRun) await recordAgainBestEffort(ctx, target, record);
    throw error;
  }
}

/** The one read after the write (after-write.ts), its ignored entries logged (place-record.ts). */
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
