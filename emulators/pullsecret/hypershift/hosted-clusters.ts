import type { Logger } from '../../../shared/logging/logger';
import type { KubeReader } from '../../common/kube-admin';
import { CLUSTER_ID_LABEL, hostedClustersPath } from './hosted-cluster';

/** Where one HostedCluster is. */
export interface HostedClusterRef {
  readonly managementCluster: string;
  readonly namespace: string;
  readonly name: string;
}

interface ListedObject {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  spec?: unknown;
}

/** HostedClusters of HyperFleet clusters across the management clusters (the I/O edge). */
export class HostedClusters {
  constructor(
    private readonly clusters: ReadonlyMap<string, KubeReader>,
    private readonly logger: Logger,
  ) {}

  /** Every HostedCluster labelled with the cluster id, in every management cluster. */
  async find(clusterId: string): Promise<HostedClusterRef[]> {
    const found: HostedClusterRef[] = [];
    for (const [managementCluster, kube] of this.clusters) {
      const list = (await kube.get(
        `${hostedClustersPath()}?labelSelector=${encodeURIComponent(`${CLUSTER_ID_LABEL}=${clusterId}`)}`,
      )) as { items?: ListedObject[] } | undefined;
      for (const item of list?.items ?? [])
        found.push({
          managementCluster,
          namespace: item.metadata?.namespace ?? '',
          name: item.metadata?.name ?? '',
        });
    }
    return found;
  }

  /**
   * Creates the HostedCluster, or updates its spec when it differs (the spec is ours to set);
   * returns why it could not, or undefined when it is in place.
   */
  async apply(
    clusterId: string,
    managementCluster: string,
    manifest: Record<string, unknown>,
  ): Promise<string | undefined> {
    const kube = this.clusters.get(managementCluster)!;
    const metadata = manifest.metadata as { name: string; namespace: string };
    const path = `${hostedClustersPath(metadata.namespace)}/${metadata.name}`;
    const where = {
      cluster_id: clusterId,
      management_cluster: managementCluster,
      namespace: metadata.namespace,
      hosted_cluster: metadata.name,
    };
    const existing = (await kube.get(path)) as ListedObject | undefined;
    if (existing && JSON.stringify(existing.spec) === JSON.stringify(manifest.spec))
      return undefined;
    const answer = existing
      ? await kube.request('PUT', path, {
          ...manifest,
          metadata: {
            ...metadata,
            ...(manifest.metadata as object),
            resourceVersion: existing.metadata?.resourceVersion,
          },
        })
      : await kube.request('POST', hostedClustersPath(metadata.namespace), manifest);
    if (answer.status >= 300)
      return `${existing ? 'Updating' : 'Creating'} HostedCluster ${metadata.namespace}/${metadata.name} in ${managementCluster} failed: HTTP ${answer.status} ${statusMessage(answer.body)}`;
    this.logger.info(existing ? 'HostedCluster updated' : 'HostedCluster created', {
      ...where,
      event: existing ? 'hostedcluster-updated' : 'hostedcluster-created',
      pull_secret_name: (manifest.spec as { pullSecret: { name: string } }).pullSecret.name,
    });
    return undefined;
  }

  /** Deletes the cluster's HostedClusters everywhere except `keep`; returns how many went. */
  async removeAll(clusterId: string, options: { keep?: HostedClusterRef } = {}): Promise<number> {
    let removed = 0;
    for (const ref of await this.find(clusterId)) {
      const keep = options.keep;
      if (
        keep &&
        keep.managementCluster === ref.managementCluster &&
        keep.namespace === ref.namespace &&
        keep.name === ref.name
      )
        continue;
      const answer = await this.clusters
        .get(ref.managementCluster)!
        .request('DELETE', `${hostedClustersPath(ref.namespace)}/${ref.name}`);
      if (answer.status >= 300 && answer.status !== 404)
        throw new Error(
          `Deleting HostedCluster ${ref.namespace}/${ref.name} in ${ref.managementCluster} failed: HTTP ${answer.status} ${statusMessage(answer.body)}`,
        );
      removed++;
      this.logger.info('HostedCluster deleted', {
        cluster_id: clusterId,
        event: 'hostedcluster-deleted',
        management_cluster: ref.managementCluster,
        namespace: ref.namespace,
        hosted_cluster: ref.name,
      });
    }
    return removed;
  }
}

/** The message of a Kubernetes Status body, or the body's start. */
function statusMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON: fall through
  }
  return body.slice(0, 200);
}
