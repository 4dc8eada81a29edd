import type { BatchSelector } from '../../../shared/batch/batch-request';
import type { HyperFleetClient } from '../../../shared/hyperfleet/client';
import type { Cluster } from '../../../shared/hyperfleet/schemas';

// A batch task's share of the fleet. Named clusters are read by id, all in the first task: a
// resync of one cluster reads one cluster, not the fleet. Otherwise task i of T takes pages
// i+1, i+1+T, ... of the cluster list (ordered by the API's default, creation time): a cluster
// created meanwhile lands on a later page, one deleted meanwhile shifts later pages by one and
// may hide a cluster from this batch (the adapter's own resync is the backstop; docs/operations.md,
// "Rotating the default pull secret").

export interface TaskShare {
  readonly index: number;
  readonly count: number;
  /** Clusters per page (the API's largest page is 100). */
  readonly pageSize: number;
}

export async function* taskClusters(
  api: Pick<HyperFleetClient, 'listClusters' | 'findCluster'>,
  selector: BatchSelector,
  share: TaskShare,
): AsyncGenerator<Cluster[]> {
  if (selector.kind === 'clusters') {
    if (share.index !== 0) return;
    const found = await Promise.all(selector.ids.map((id) => api.findCluster(id)));
    yield found.filter((cluster): cluster is Cluster => cluster !== undefined);
    return;
  }
  const size = share.pageSize;
  for (let page = share.index + 1; ; page += share.count) {
    const list = await api.listClusters({ page, size });
    if (list.items.length > 0) yield list.items;
    if (list.items.length === 0 || page * size >= list.total) return;
  }
}
