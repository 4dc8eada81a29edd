import { PermanentError } from '../../shared/errors';
import type { ManagementClusterSet } from './management-clusters';

/** Reason of a run whose management cluster is not configured. */
export const UNKNOWN_MANAGEMENT_CLUSTER = 'UnknownManagementCluster';

/**
 * Placement named a management cluster the job has no access to. Permanent: the same execution
 * cannot succeed until the placement or the job's MANAGEMENT_CLUSTERS changes. Thrown before
 * anything is written (no Secret Manager write, no claim), so a typo never leaves half a placement.
 */
export class UnknownManagementClusterError extends PermanentError {
  constructor(
    readonly requested: string,
    readonly known: readonly string[],
    role = 'The execution targets',
  ) {
    super(
      `${role} management cluster "${requested}", which the pull secret job does not know (known: ${known.length > 0 ? known.join(', ') : 'none'}); nothing was written. Correct the placement adapter's data.managementCluster, or add "${requested}" to the job's MANAGEMENT_CLUSTERS.`,
      UNKNOWN_MANAGEMENT_CLUSTER,
    );
  }
}

/** Throws UnknownManagementClusterError unless `name` is configured. */
export function requireKnownCluster(
  name: string,
  clusters: ManagementClusterSet,
  role?: string,
): void {
  if (!Object.hasOwn(clusters, name))
    throw new UnknownManagementClusterError(name, Object.keys(clusters), role);
}
