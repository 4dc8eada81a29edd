import { PermanentError } from '../../../shared/errors';
import { placeProblem } from '../../../shared/pull-secret/names';
import type { ManagementClusterSet } from '../config/management-clusters';
import { describePlace, placeKey, type Place } from './places';

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
 * X is X-pull-secret in clusters-X and nowhere else, whatever placement (another adapter's data)
 * or K8S_SECRET_NAME says. Permanent: the same execution can only be refused again.
 */
export function requireOwnPlace(clusterId: string, namespace: string, name: string): void {
  const problem = placeProblem(clusterId, namespace, name);
  if (problem)
    throw new PermanentError(
      `Refused to write the Kubernetes Secret: ${problem}. Have the placement adapter report data.namespace clusters-${clusterId} (docs/management-clusters.md).`,
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
