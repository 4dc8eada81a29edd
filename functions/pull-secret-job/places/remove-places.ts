import { AdapterError, PermanentError, TransientError } from '../../../shared/errors';
import type { Logger } from '../../../shared/logging/logger';
import { placeProblem, type NamespaceLayout } from '../../../shared/pull-secret/namespace-layout';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import type { LostClaim } from '../claim/claim';
import type { JobConfig } from '../config/config';
import type { ManagementClusterSet } from '../config/management-clusters';
import type { ClusterSecrets } from '../kubernetes/cluster-secrets';
import { deleteKubernetesSecret } from '../kubernetes/sync-kubernetes';
import type { SecretMetadata } from '../secret-manager/secret-store';
import {
  changePlaces,
  describePlace,
  placeKey,
  planCleanup,
  readPlaces,
  samePlace,
  type Place,
} from './place-record';

// Removing ours from places: the PlaceContext both Kubernetes phases work in, the delete's phase
// (every recorded place and the target), removing ours from one place after another (what a move's
// cleanup and a withdrawal use too: places/place-secret.ts), and places on management clusters
// the job does not know: a target refused before anything is written, an earlier place kept
// recorded with a warning.

/** What the Kubernetes phases need: the target, every cluster, and the record's secret. */
export interface PlaceContext {
  readonly kubernetes: NonNullable<JobConfig['kubernetes']>;
  readonly clusterId: string;
  /** This execution's generation, stamped on what it writes; undefined for direct runs. */
  readonly generation?: number;
  readonly store: PlaceRecordStore;
  readonly secretPath: string;
  readonly clusterSecrets: (managementCluster: string) => Promise<ClusterSecrets>;
  /** Re-reads the claim whenever a newer generation's trace is found. */
  readonly recheckClaim: () => Promise<LostClaim | undefined>;
  /** The claim re-check on a secret already read (the read after the Kubernetes write). */
  readonly recheckIn: (current: SecretMetadata | undefined) => LostClaim | undefined;
  readonly retry: RetryPolicy;
  readonly logger: Logger;
  readonly dryRun: boolean;
}
type PlaceRecordStore = Parameters<typeof readPlaces>[0];

/** Where this execution puts the Kubernetes Secret. */
export const targetPlace = (k: PlaceContext['kubernetes']): Place => ({
  cluster: k.cluster,
  namespace: k.namespace,
  name: k.secretName,
});

export function removalDeps(ctx: PlaceContext, during: 'move' | 'delete'): RemovalDependencies {
  return {
    clusterSecrets: ctx.clusterSecrets,
    clusters: ctx.kubernetes.clusters,
    layout: ctx.kubernetes.layout,
    clusterId: ctx.clusterId,
    ...(ctx.generation !== undefined ? { generation: ctx.generation } : {}),
    logger: ctx.logger,
    dryRun: ctx.dryRun,
    during,
  };
}

/** The delete's Kubernetes phase: the target's outcome and the other places', the failure if any. */
export interface CleanedPlaces {
  readonly target?: RemovedPlace;
  readonly cleaned: readonly RemovedPlace[];
  /** Places left as they are and still recorded (see KeptPlace). */
  readonly kept: readonly KeptPlace[];
  readonly failure?: AdapterError;
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
  // A place stamped newer than the delete is no execution's: DELETE bumps the generation once and
  // the API refuses every change after it (hyperfleet-api pkg/services/resource.go: a patch of a
  // resource marked for deletion is a conflict), so no apply is ever newer than its delete. It
  // fails SecretGenerationAhead (newerFailure); the claim is not read again for it.
  const failure = placeFailure(report) ?? newerFailure(report.kept);
  const mine = report.removed.find((r) => samePlace(r.place, target));
  return {
    ...(mine ? { target: mine } : {}),
    cleaned: report.removed.filter((r) => r !== mine),
    kept: report.kept,
    ...(failure ? { failure } : {}),
  };
}

/** Forgets the places removed; `gone` (a newer delete removed the record) leaves nothing to do. */
async function forget(ctx: PlaceContext, removed: readonly RemovedPlace[]): Promise<void> {
  if (ctx.dryRun || removed.length === 0) return;
  // `gone`: a newer delete removed the secret, and the record with it; nothing left to forget.
  await changePlaces(
    ctx.store,
    ctx.secretPath,
    { remove: removed.map((r) => r.place) },
    { logger: ctx.logger, retry: ctx.retry, clusterId: ctx.clusterId },
  );
}

/** A place where nothing of ours is left; `foreign`: something not ours is there, left alone. */
export interface RemovedPlace {
  readonly place: Place;
  readonly outcome: 'deleted' | 'absent' | 'foreign';
}

/**
 * A place left as it is and kept recorded: `newer`, a newer generation wrote the Secret there (it
 * is that generation's to keep or remove); `unconfigured`, its management cluster is no longer in
 * MANAGEMENT_CLUSTERS (a person removes it, see unconfiguredPlaceWarning).
 */
export interface KeptPlace {
  readonly place: Place;
  /**
   * `newer`: stamped by a newer generation; `unconfigured`: on a management cluster the job no
   * longer knows; `previous-layout`: the copy a layout migration keeps (place-secret.ts).
   */
  readonly why: 'newer' | 'unconfigured' | 'previous-layout';
}

/** Every place handled: done (forget them), kept, and failed (keep them recorded). */
export interface RemovalReport {
  readonly removed: readonly RemovedPlace[];
  readonly kept: readonly KeptPlace[];
  readonly failed: readonly { readonly place: Place; readonly error: AdapterError }[];
}

export interface RemovalDependencies {
  readonly clusterSecrets: (managementCluster: string) => Promise<ClusterSecrets>;
  readonly clusters: ManagementClusterSet;
  /** Where ours can be: a recorded place elsewhere is never touched (the fence's rule). */
  readonly layout: NamespaceLayout;
  readonly clusterId: string;
  /** This execution's generation: a Secret stamped newer is never removed. */
  readonly generation?: number;
  readonly logger: Logger;
  readonly dryRun: boolean;
  /** What the removal is for; says what happens to the record of an unconfigured place. */
  readonly during: 'move' | 'delete';
}

/**
 * Removes our Secret from each place, one after the other; one place failing does not stop the
 * others (a down cluster must not keep a reachable one dirty). Never throws: the caller forgets the
 * removed places, then fails with placeFailure() while any remain.
 */
export async function removePlaces(
  places: readonly Place[],
  deps: RemovalDependencies,
): Promise<RemovalReport> {
  const removed: RemovedPlace[] = [];
  const kept: KeptPlace[] = [];
  const failed: { place: Place; error: AdapterError }[] = [];
  for (const place of places) {
    const log = deps.logger.child({
      phase: 'kubernetes',
      management_cluster: place.cluster,
      namespace: place.namespace,
      k8s_secret: place.name,
    });
    if (!Object.hasOwn(deps.clusters, place.cluster)) {
      log.warn(
        unconfiguredPlaceWarning(place, Object.keys(deps.clusters), deps.clusterId, deps.during),
        { operation: 'delete-secret', reason: 'UnconfiguredManagementCluster' },
      );
      kept.push({ place, why: 'unconfigured' });
      continue;
    }
    // A recorded place outside the fence's rule (a record edited in Secret Manager, or written by
    // a version before the rule) cannot be proven ours: nothing is removed there, the record goes.
    const outside = placeProblem(deps.layout, deps.clusterId, place, 'remove');
    if (outside) {
      log.warn(
        `Recorded ${describePlace(place)} is not a place ours can be (${outside}); nothing removed there, the record is dropped`,
        {
          operation: 'delete-secret',
          reason: 'InvalidManagementNamespace',
        },
      );
      removed.push({ place, outcome: 'foreign' });
      continue;
    }
    try {
      const secrets = await deps.clusterSecrets(place.cluster);
      const { outcome } = await deleteKubernetesSecret(
        secrets,
        place.namespace,
        place.name,
        deps.clusterId,
        log,
        deps.dryRun,
        deps.generation,
      );
      if (outcome === 'newer') kept.push({ place, why: 'newer' });
      else removed.push({ place, outcome });
    } catch (error) {
      const failure = asAdapterError(error);
      log.warn(`Could not remove our ${describePlace(place)}; it stays recorded`, {
        operation: 'delete-secret',
        reason: failure.reason,
        failure_kind: failure.kind,
      });
      failed.push({ place, error: failure });
    }
  }
  return { removed, kept, failed };
}

/** Anything else thrown by a Kubernetes call (a network error) is transient. */
export function asAdapterError(error: unknown): AdapterError {
  return error instanceof AdapterError
    ? error
    : new TransientError(
        error instanceof Error ? error.message : String(error),
        'KubernetesUnavailable',
        { cause: error },
      );
}

/**
 * The run's failure when places could not be cleaned: transient while any failure may pass
 * (an unreachable cluster), permanent only when every one needs a person (rights).
 */
export function placeFailure(report: Pick<RemovalReport, 'failed'>): AdapterError | undefined {
  const [first] = report.failed;
  if (!first) return undefined;
  const details = report.failed
    .map(({ place, error }) => `${describePlace(place)}: ${error.message}`)
    .join('; ');
  const kind = report.failed.some(({ error }) => error.kind === 'transient')
    ? 'transient'
    : 'permanent';
  return new AdapterError(
    `Could not remove the pull secret from ${report.failed.length === 1 ? 'a place' : `${report.failed.length} places`} it was written to: ${details}. ${report.failed.length === 1 ? 'It stays' : 'They stay'} recorded on the Secret Manager secret; the next execution removes ${report.failed.length === 1 ? 'it' : 'them'}.`,
    first.error.reason,
    kind,
  );
}

/**
 * A run that still holds its claim found Secrets stamped by a newer generation at places it was to
 * remove (a delete's places, a move's old ones): no execution can have written them (a newer one
 * would hold the claim), so the stamp is stale or set by hand. The run must not remove them
 * blindly, nor drop the record of them, nor pass over them in silence: a person decides.
 */
export function newerFailure(kept: readonly KeptPlace[]): AdapterError | undefined {
  const newer = kept.filter((k) => k.why === 'newer');
  if (newer.length === 0) return undefined;
  return new PermanentError(
    `${newer.map((k) => describePlace(k.place)).join(', ')} carries a hyperfleet.io/generation stamp newer than this execution's generation, yet no newer execution holds the pull secret claim; left in place and recorded. If the stamp is stale, remove that annotation (or the Secret) and run the job again.`,
    'SecretGenerationAhead',
  );
}

/** Reason of a run whose management cluster is not configured. */
export const UNKNOWN_MANAGEMENT_CLUSTER = 'UnknownManagementCluster';

const knownList = (known: readonly string[]) =>
  `known: ${known.length > 0 ? known.join(', ') : 'none'}`;

/**
 * The execution's target is a management cluster the job has no access to. Permanent: the same
 * execution cannot succeed until the placement or the job's MANAGEMENT_CLUSTERS changes. Thrown
 * before anything is written (no Secret Manager write, no claim), so a typo in a placement never
 * leaves half a write.
 */
export class UnknownManagementClusterError extends PermanentError {
  constructor(
    readonly requested: string,
    readonly known: readonly string[],
  ) {
    super(
      `The execution targets management cluster "${requested}", which the pull secret job does not know (${knownList(known)}); nothing was written. Correct the placement adapter's data.managementCluster, or add "${requested}" to the job's MANAGEMENT_CLUSTERS.`,
      UNKNOWN_MANAGEMENT_CLUSTER,
    );
  }
}

/** Throws UnknownManagementClusterError unless `name` is configured. */
export function requireKnownCluster(name: string, clusters: ManagementClusterSet): void {
  if (!Object.hasOwn(clusters, name))
    throw new UnknownManagementClusterError(name, Object.keys(clusters));
}

/**
 * Refuses, before any call, a target the admission fence would refuse: the pull secret of cluster
 * X is X-pull-secret in X's namespace under the operator's layout and nowhere else, whatever
 * placement (another adapter's data) says. Permanent: the same execution can only be refused again.
 */
export function requireOwnPlace(
  clusterId: string,
  target: {
    readonly layout: NamespaceLayout;
    readonly namespace: string;
    readonly secretName: string;
  },
): void {
  const place = { namespace: target.namespace, name: target.secretName };
  const problem = placeProblem(target.layout, clusterId, place, 'write');
  if (problem)
    throw new PermanentError(
      `Refused to write the Kubernetes Secret: ${problem}. The adapter and the job must share one MANAGEMENT_NAMESPACE_TEMPLATE (Terraform management_namespace renders it into both; docs/management-clusters.md).`,
      'InvalidManagementNamespace',
    );
}

/**
 * The warning for an earlier place on a management cluster that was removed from
 * MANAGEMENT_CLUSTERS. The job cannot reach it, so it cannot remove ours there; failing the run
 * would fail every later move and delete of this cluster for good (nothing the job does can change
 * it), so the run goes on and says what a person must do.
 *
 * The place stays recorded (for as long as the Secret Manager secret exists): the record is the
 * only lasting inventory of where the pull secret may still be, a log line is not; if the cluster
 * comes back (a configuration mistake, a rename undone) the next execution removes ours there by
 * itself; and it costs one annotation per such place. Each later execution warns again.
 */
export function unconfiguredPlaceWarning(
  place: Place,
  known: readonly string[],
  clusterId: string,
  during: 'move' | 'delete',
): string {
  const kept =
    during === 'move'
      ? `The place stays recorded on the Secret Manager secret (annotation ${placeKey(place)}): add "${place.cluster}" back to MANAGEMENT_CLUSTERS and the next execution removes it, or remove that annotation once the Secret is gone.`
      : `The Secret Manager secret is kept (its versions disabled, whatever ON_DELETE says) because it holds the record of this place (annotation ${placeKey(place)}): add "${place.cluster}" back to MANAGEMENT_CLUSTERS and the next delete removes it and then the secret, or remove that annotation once the Secret is gone.`;
  return `Our ${describePlace(place)} was not removed: management cluster "${place.cluster}" is no longer in MANAGEMENT_CLUSTERS (${knownList(known)}), so the job cannot reach it. If that cluster still exists, delete the Secret there by hand, only if it carries the labels managed-by=hyperfleet and cluster-id=${clusterId} (kubectl -n ${place.namespace} delete secret ${place.name}). ${kept}`;
}

/**
 * What a delete does with the Secret Manager secret: ON_DELETE, unless a recorded place on an
 * unconfigured management cluster was kept. The secret's annotations are the only record of that
 * place (and of who owns it); deleting the secret would orphan the live Kubernetes Secret for good.
 * So it is retained (versions disabled, labels, claim and record kept, no ttl) until a later delete
 * can clean the place.
 */
export function secretManagerDisposal(
  onDelete: 'delete' | 'retain',
  kept: readonly { readonly why: string }[] | undefined,
): 'delete' | 'retain' {
  return (kept ?? []).some((k) => k.why === 'unconfigured') ? 'retain' : onDelete;
}

/**
 * The WARNING for a delete that keeps its Secret Manager secret (see secretManagerDisposal): which
 * places it still records, and what clears them. Undefined when the secret goes as ON_DELETE says.
 */
export function retainedSecretWarning(
  onDelete: 'delete' | 'retain',
  kept: readonly { readonly why: string; readonly place: Place }[] | undefined,
): string | undefined {
  if (secretManagerDisposal(onDelete, kept) === onDelete) return undefined;
  const places = (kept ?? [])
    .filter((k) => k.why === 'unconfigured')
    .map((k) => describePlace(k.place))
    .join(', ');
  return (
    `The Secret Manager secret is retained (versions disabled), not deleted as ON_DELETE=${onDelete} says: ` +
    `it holds the only record of ${places}, on management clusters no longer in MANAGEMENT_CLUSTERS. ` +
    'The next delete after those management clusters are configured again removes them and the secret.'
  );
}
