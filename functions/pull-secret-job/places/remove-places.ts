import { AdapterError, PermanentError, TransientError } from '../../../shared/errors';
import type { Logger } from '../../../shared/logging/logger';
import type { ClusterSecrets } from '../kubernetes/cluster-secrets';
import { placeProblem } from '../../../shared/pull-secret/names';
import { deleteKubernetesSecret } from '../kubernetes/delete-kubernetes-secret';
import type { ManagementClusterSet } from '../config/management-clusters';
import { describePlace, type Place } from './places';
import { unconfiguredPlaceWarning } from './unknown-cluster';

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
  readonly why: 'newer' | 'unconfigured';
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
    const outside = placeProblem(deps.clusterId, place.namespace, place.name);
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
