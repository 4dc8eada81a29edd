import type { HyperFleetClient } from '../../../shared/hyperfleet/client';
import { HyperFleetNotFoundError } from '../../../shared/hyperfleet/errors';
import type { ClusterWithStatuses } from './fleet-report';

/** Status reads in flight at once: enough for a large fleet, gentle on the API. */
const STATUS_READS_AT_ONCE = 8;

/**
 * Every cluster (paged) and every adapter's statuses on it (paged), read with the API's own
 * retries. A cluster hard-deleted between the list and its status read is left out.
 */
export async function readFleet(
  api: Pick<HyperFleetClient, 'listAllClusters' | 'listStatuses'>,
): Promise<ClusterWithStatuses[]> {
  const clusters = await api.listAllClusters();
  const read: (ClusterWithStatuses | undefined)[] = new Array(clusters.length);
  let next = 0;
  const worker = async () => {
    while (next < clusters.length) {
      const at = next++;
      const cluster = clusters[at]!;
      try {
        read[at] = { cluster, statuses: await api.listStatuses(cluster.id) };
      } catch (error) {
        if (!(error instanceof HyperFleetNotFoundError)) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: STATUS_READS_AT_ONCE }, worker));
  return read.filter((entry): entry is ClusterWithStatuses => entry !== undefined);
}
