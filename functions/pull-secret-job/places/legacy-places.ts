import { samePlace, uniquePlaces, type Place } from './places';

/** A Kubernetes namespace name: a DNS label (RFC 1123), at most 63 characters. */
const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** What the Secret Manager secret says about earlier writes, as far as legacy places go. */
export interface RecordState {
  /** The secret exists and is ours: an older version wrote it, or this execution did. */
  readonly exists: boolean;
  /** Places recorded on it; none at all means no version that records places ever wrote there. */
  readonly recorded: readonly Place[];
  /** This execution created the secret: no earlier execution of any version wrote anything. */
  readonly createdNow: boolean;
}

/**
 * Where an older version of the job may have written the Kubernetes Secret, when nothing was
 * recorded: versions before the placement record wrote to their one management cluster (now one of
 * MANAGEMENT_CLUSTERS, which one is not known), in the namespace placement named (the one this
 * execution is given, when placement did not move it) or else `clusters-{id}` (their fixed rule),
 * under the same Secret name. Every such place except the target is a candidate.
 *
 * Safe to remove: only a Secret carrying our labels (managed-by, adapter, and this cluster's
 * cluster-id) is ever deleted there (delete-pull-secret.ts), and no newer generation's (its stamp);
 * anything else at a guessed place is left alone. None when the record has entries (a recording
 * version ran, and recorded everything it wrote), when the secret is absent (older versions stored
 * in Secret Manager before writing to Kubernetes) or was created by this execution. The cost, a
 * read per candidate (clusters × 2 at most), is paid once per cluster: the first apply records.
 */
export function legacyPlaces(
  state: RecordState,
  where: {
    readonly clusters: readonly string[];
    readonly clusterId: string;
    readonly namespace: string;
    readonly target: Place;
  },
): Place[] {
  if (!state.exists || state.createdNow || state.recorded.length > 0) return [];
  const namespaces = [where.namespace, `clusters-${where.clusterId}`].filter((ns) =>
    NAMESPACE_NAME.test(ns),
  );
  const candidates = where.clusters.flatMap((cluster) =>
    namespaces.map((namespace) => ({ cluster, namespace, name: where.target.name })),
  );
  return uniquePlaces(candidates.filter((p) => !samePlace(p, where.target)));
}

/**
 * What of a legacy candidate is worth reporting: only that ours was found there and deleted. A
 * guess that found nothing (or something not ours) is not an earlier place.
 */
export const reportable = (
  legacy: readonly Place[],
  removed: { readonly place: Place; readonly outcome: string },
): boolean => removed.outcome === 'deleted' || !legacy.some((p) => samePlace(p, removed.place));
