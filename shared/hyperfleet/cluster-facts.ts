import { gcpProjectOf } from './cluster-project';
import type { AdapterStatus, Cluster } from './schemas';
import {
  currentNamespace,
  DEFAULT_LAYOUT,
  describeLayout,
  previousNamespace,
  type NamespaceLayout,
} from '../pull-secret/namespace-layout';

/** What the cluster provides that the decision and the launch need; computed by the adapter's handler and a batch task. */
export interface ClusterFacts {
  readonly clusterId: string;
  readonly clusterName: string;
  readonly generation: number;
  readonly deleting: boolean;
  readonly gcpProjectId: string | undefined;
  /**
   * The operator's layout's namespace for the cluster (MANAGEMENT_NAMESPACE_TEMPLATE), which the
   * placement adapter's data.namespace, when it reports one, must agree with.
   */
  readonly namespace:
    | { readonly ok: true; readonly value: string }
    | { readonly ok: false; readonly problem: string };
  /**
   * A namespace layout migration's `keep-previous` phase is under way: a copy our status says is
   * kept in the previous layout is meant to stay (any other time it is due for removal).
   */
  readonly keepsPreviousLayout: boolean;
  /** From the placement adapter's data.managementCluster; no value: the job's default cluster. */
  readonly managementCluster:
    | { readonly ok: true; readonly value?: string }
    | { readonly ok: false; readonly problem: string };
}

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

const unset = (value: unknown) => value === undefined || value === null || value === '';
const shown = (value: unknown) => JSON.stringify(String(value).slice(0, 80));

/**
 * What the decision needs from the cluster and the other adapters' statuses: the GCP project id
 * (current `spec.platform.gcp.projectID` or older `spec.gcp.projectId`), the management namespace
 * (the operator's layout: `clusters-{id}` by default, or one shared namespace) and the management
 * cluster (placement's `data.managementCluster`, else none: the job's default). The namespace is
 * where HyperShift's HostedCluster lives and reads the pull secret, so placement, this adapter and
 * the HyperShift adapter must agree on it: placement's `data.namespace`, when reported, is checked
 * against the layout, never followed.
 */
export function clusterFacts(
  cluster: Cluster,
  statuses: readonly AdapterStatus[],
  layout: NamespaceLayout = DEFAULT_LAYOUT,
): ClusterFacts {
  const project = gcpProjectOf(cluster);
  const placement = statuses.find((s) => s.adapter === 'placement')?.data;
  return {
    clusterId: cluster.id,
    clusterName: cluster.name,
    generation: cluster.generation,
    deleting: Boolean(cluster.deleted_time),
    gcpProjectId: project,
    namespace: deletionNamespace(
      Boolean(cluster.deleted_time),
      managementNamespace(placement?.namespace, layout, cluster.id),
      currentNamespace(layout, cluster.id),
    ),
    keepsPreviousLayout: layout.migration?.phase === 'keep-previous',
    managementCluster: managementCluster(placement?.managementCluster),
  };
}

function managementNamespace(
  placed: unknown,
  layout: NamespaceLayout,
  clusterId: string,
): ClusterFacts['namespace'] {
  const own = currentNamespace(layout, clusterId);
  if (!DNS_LABEL.test(own))
    return {
      ok: false,
      problem: `InvalidManagementNamespace: MANAGEMENT_NAMESPACE_TEMPLATE ${shown(layout.template)} gives ${shown(own)} for this cluster, which is not a Kubernetes namespace name (a DNS label of at most 63 lowercase letters, digits or "-"): the cluster id is too long for the template`,
    };
  if (unset(placed)) return { ok: true, value: own };
  // Placement is another adapter's data: it may name any namespace, but the pull secret of a
  // cluster goes only where the operator's layout puts it (the admission fence's rule, which the
  // job checks too). While migrating, placement may still report the previous layout's.
  if (typeof placed !== 'string' || !DNS_LABEL.test(placed))
    return {
      ok: false,
      problem: `InvalidManagementNamespace: the placement adapter's data.namespace ${shown(placed)} is not a Kubernetes namespace name (a DNS label of at most 63 lowercase letters, digits or "-")`,
    };
  const agreed = [own, previousNamespace(layout, clusterId)];
  if (!agreed.includes(placed))
    return {
      ok: false,
      problem: `InvalidManagementNamespace: the placement adapter's data.namespace ${shown(placed)} is not this cluster's management namespace "${own}" under the layout MANAGEMENT_NAMESPACE_TEMPLATE=${describeLayout(layout)} (the admission fence admits no other). Configure the placement adapter for the same layout, or change the layout (docs/management-clusters.md)`,
    };
  return { ok: true, value: own };
}

/**
 * A delete goes on whatever placement reports: the job removes ours from every recorded place and
 * writes nowhere, so a wrong or forged data.namespace (or one an earlier version accepted) must not
 * keep a cluster from being cleaned up. It is launched for the layout's namespace.
 */
function deletionNamespace(
  deleting: boolean,
  namespace: ClusterFacts['namespace'],
  own: string,
): ClusterFacts['namespace'] {
  return deleting && !namespace.ok ? { ok: true, value: own } : namespace;
}

function managementCluster(placed: unknown): ClusterFacts['managementCluster'] {
  if (unset(placed)) return { ok: true };
  if (typeof placed === 'string' && DNS_LABEL.test(placed)) return { ok: true, value: placed };
  return {
    ok: false,
    problem: `The placement adapter's data.managementCluster ${shown(placed)} is not a management cluster name (a DNS label of at most 63 lowercase letters, digits or "-")`,
  };
}

/** Statuses by adapter name, as CEL preconditions see them (`statuses.dns`). */
export function statusesByAdapter(
  statuses: readonly AdapterStatus[],
): Record<string, AdapterStatus> {
  return Object.fromEntries(statuses.map((s) => [s.adapter, s]));
}
