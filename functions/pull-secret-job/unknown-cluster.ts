import { PermanentError } from '../../shared/errors';
import type { ManagementClusterSet } from './management-clusters';

/** Reason of a run whose management cluster is not configured. */
export const UNKNOWN_MANAGEMENT_CLUSTER = 'UnknownManagementCluster';

const knownList = (known: readonly string[]) =>
  `known: ${known.length > 0 ? known.join(', ') : 'none'}`;

/**
 * A management cluster the job has no access to. Permanent: the same execution cannot succeed
 * until the placement or the job's MANAGEMENT_CLUSTERS changes. For the execution's target it is
 * thrown before anything is written (no Secret Manager write, no claim), so a typo in a placement
 * never leaves half a placement; for a recorded earlier place, the place stays recorded.
 */
export class UnknownManagementClusterError extends PermanentError {
  constructor(
    readonly requested: string,
    readonly known: readonly string[],
    context: 'target' | 'recorded' = 'target',
  ) {
    super(
      context === 'target'
        ? `The execution targets management cluster "${requested}", which the pull secret job does not know (${knownList(known)}); nothing was written. Correct the placement adapter's data.managementCluster, or add "${requested}" to the job's MANAGEMENT_CLUSTERS.`
        : `The pull secret was written to management cluster "${requested}" earlier, which the pull secret job no longer knows (${knownList(known)}), so it cannot be removed there. Add "${requested}" back to the job's MANAGEMENT_CLUSTERS; the place stays recorded until then.`,
      UNKNOWN_MANAGEMENT_CLUSTER,
    );
  }
}

/** Throws UnknownManagementClusterError unless `name` is configured. */
export function requireKnownCluster(
  name: string,
  clusters: ManagementClusterSet,
  context: 'target' | 'recorded' = 'target',
): void {
  if (!Object.hasOwn(clusters, name))
    throw new UnknownManagementClusterError(name, Object.keys(clusters), context);
}
