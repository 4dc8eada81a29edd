import type { HyperFleetClient } from '../../../shared/hyperfleet/client';
import type { Cluster } from '../../../shared/hyperfleet/schemas';
import { hostedClustersPath } from '../hypershift/hosted-cluster';
import type { KubeReader } from '../../common/kube-admin';

/** Where the pull secret adapter says it wrote the Secret, and what is there. */
export interface Handoff {
  readonly managementCluster: string;
  readonly namespace: string;
  readonly secretName: string;
  readonly secret?: Record<string, unknown>;
  readonly hostedCluster?: Record<string, unknown>;
}

/** True when the cluster is `Reconciled=True` (every required adapter Available) at its generation. */
export function isReady(cluster: Cluster | undefined): boolean {
  const reconciled = cluster?.status?.conditions.find((c) => c.type === 'Reconciled');
  return reconciled?.status === 'True' && reconciled.observed_generation === cluster?.generation;
}

/**
 * Reads the handoff of seed 004 as HyperShift sees it: our status `data` names the management
 * cluster, namespace and Secret; the HostedCluster named after the cluster sits beside it.
 * Undefined until our status names a place in a known management cluster.
 */
export async function readHandoff(
  api: HyperFleetClient,
  clusters: ReadonlyMap<string, KubeReader>,
  cluster: { id: string; name: string },
  defaultCluster: string,
): Promise<Handoff | undefined> {
  const own = (await api.listStatuses(cluster.id)).find((s) => s.adapter === 'pullsecret');
  const data = own?.data ?? {};
  const managementCluster =
    typeof data.management_cluster === 'string' ? data.management_cluster : defaultCluster;
  const kube = clusters.get(managementCluster);
  if (!kube || typeof data.namespace !== 'string' || typeof data.pull_secret_name !== 'string')
    return undefined;
  const secret = await kube.get(
    `/api/v1/namespaces/${data.namespace}/secrets/${data.pull_secret_name}`,
  );
  const hostedCluster = await kube.get(`${hostedClustersPath(data.namespace)}/${cluster.name}`);
  return {
    managementCluster,
    namespace: data.namespace,
    secretName: data.pull_secret_name,
    ...(secret ? { secret } : {}),
    ...(hostedCluster ? { hostedCluster } : {}),
  };
}
