import { AdapterError, TransientError } from '../../shared/errors';
import type { Logger } from '../../shared/logging/logger';
import type { ClusterSecrets } from './cluster-secrets';
import { deleteKubernetesSecret } from './delete-pull-secret';
import type { ManagementClusterSet } from './management-clusters';
import { describePlacement, type Placement } from './placements';
import { requireKnownCluster } from './unknown-cluster';

/** What removing ours from one place did; `foreign`: something not ours is there, left alone. */
export interface RemovedPlacement {
  readonly place: Placement;
  readonly outcome: 'deleted' | 'absent' | 'foreign';
}

/** Every place handled: the ones done (forget them) and the ones that failed (keep them recorded). */
export interface RemovalReport {
  readonly removed: readonly RemovedPlacement[];
  readonly failed: readonly { readonly place: Placement; readonly error: AdapterError }[];
}

export interface RemovalDependencies {
  readonly clusterSecrets: (managementCluster: string) => Promise<ClusterSecrets>;
  readonly clusters: ManagementClusterSet;
  readonly clusterId: string;
  readonly logger: Logger;
  readonly dryRun: boolean;
}

/**
 * Removes our Secret from each place, one after the other; one place failing does not stop the
 * others (a down cluster must not keep a reachable one dirty). Never throws: the caller forgets the
 * removed places, then fails with placementFailure() while any remain.
 */
export async function removePlacements(
  places: readonly Placement[],
  deps: RemovalDependencies,
): Promise<RemovalReport> {
  const removed: RemovedPlacement[] = [];
  const failed: { place: Placement; error: AdapterError }[] = [];
  for (const place of places) {
    const log = deps.logger.child({
      phase: 'kubernetes',
      management_cluster: place.cluster,
      namespace: place.namespace,
      k8s_secret: place.name,
    });
    try {
      requireKnownCluster(place.cluster, deps.clusters, 'recorded');
      const secrets = await deps.clusterSecrets(place.cluster);
      const { outcome } = await deleteKubernetesSecret(
        secrets,
        place.namespace,
        place.name,
        deps.clusterId,
        log,
        deps.dryRun,
      );
      removed.push({ place, outcome });
    } catch (error) {
      const failure =
        error instanceof AdapterError
          ? error
          : new TransientError(
              error instanceof Error ? error.message : String(error),
              'KubernetesUnavailable',
              { cause: error },
            );
      log.warn(`Could not remove our ${describePlacement(place)}; it stays recorded`, {
        operation: 'delete-secret',
        reason: failure.reason,
        failure_kind: failure.kind,
      });
      failed.push({ place, error: failure });
    }
  }
  return { removed, failed };
}

/**
 * The run's failure when places could not be cleaned: transient while any failure may pass
 * (an unreachable cluster), permanent only when every one needs a person (rights, an unknown cluster).
 */
export function placementFailure(report: RemovalReport): AdapterError | undefined {
  const [first] = report.failed;
  if (!first) return undefined;
  const details = report.failed
    .map(({ place, error }) => `${describePlacement(place)}: ${error.message}`)
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
