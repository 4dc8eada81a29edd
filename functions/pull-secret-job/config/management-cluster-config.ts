import { SINGLE_MANAGEMENT_CLUSTER_NAME } from '../../../shared/pull-secret/names';
import type { KubernetesAccess } from '../kubernetes/kubernetes-access';
import { googleEndpointProblem, type ManagementClusterSet } from './management-clusters';

/** The variables that say which management clusters exist and which one an execution targets. */
export interface ManagementClusterEnv {
  readonly MANAGEMENT_NAMESPACE?: string | undefined;
  readonly SKIP_KUBERNETES?: boolean | undefined;
  readonly KUBECONFIG?: string | undefined;
  readonly MANAGEMENT_CLUSTER_ENDPOINT?: string | undefined;
  readonly MANAGEMENT_CLUSTER_CA_CERT?: string | undefined;
  readonly MANAGEMENT_CLUSTERS?: ManagementClusterSet | undefined;
  readonly DEFAULT_MANAGEMENT_CLUSTER?: string | undefined;
  readonly MANAGEMENT_CLUSTER?: string | undefined;
}

/** The configured clusters and the default, from MANAGEMENT_CLUSTERS or the single-cluster variables. */
export function configuredClusters(env: ManagementClusterEnv): {
  readonly clusters: ManagementClusterSet;
  readonly defaultName?: string;
} {
  if (env.MANAGEMENT_CLUSTERS) {
    const names = Object.keys(env.MANAGEMENT_CLUSTERS);
    const defaultName =
      env.DEFAULT_MANAGEMENT_CLUSTER ?? (names.length === 1 ? names[0] : undefined);
    return { clusters: env.MANAGEMENT_CLUSTERS, ...(defaultName ? { defaultName } : {}) };
  }
  const access: KubernetesAccess | undefined = env.KUBECONFIG
    ? { kind: 'kubeconfig', path: env.KUBECONFIG }
    : env.MANAGEMENT_CLUSTER_ENDPOINT
      ? {
          kind: 'google',
          endpoint: env.MANAGEMENT_CLUSTER_ENDPOINT,
          ...(env.MANAGEMENT_CLUSTER_CA_CERT ? { caPem: env.MANAGEMENT_CLUSTER_CA_CERT } : {}),
        }
      : undefined;
  if (!access) return { clusters: {} };
  const name = env.DEFAULT_MANAGEMENT_CLUSTER ?? SINGLE_MANAGEMENT_CLUSTER_NAME;
  return { clusters: { [name]: access }, defaultName: name };
}

/**
 * Configuration mistakes about management clusters, each with the variable it is about. An
 * execution naming a cluster that is not configured is not one of them: that is the run's
 * UnknownManagementCluster failure (nothing written, reported on the cluster's status).
 */
export function managementClusterProblems(
  env: ManagementClusterEnv,
): { path: string[]; message: string }[] {
  const problems: { path: string[]; message: string }[] = [];
  if (env.MANAGEMENT_CLUSTERS) {
    const single = (
      ['KUBECONFIG', 'MANAGEMENT_CLUSTER_ENDPOINT', 'MANAGEMENT_CLUSTER_CA_CERT'] as const
    ).filter((name) => env[name] !== undefined);
    if (single.length > 0)
      problems.push({
        path: ['MANAGEMENT_CLUSTERS'],
        message: `and ${single.join(', ')} are both set; describe every cluster as an entry of MANAGEMENT_CLUSTERS and unset ${single.join(', ')}`,
      });
    const known = Object.keys(env.MANAGEMENT_CLUSTERS);
    if (env.DEFAULT_MANAGEMENT_CLUSTER && !known.includes(env.DEFAULT_MANAGEMENT_CLUSTER))
      problems.push({
        path: ['DEFAULT_MANAGEMENT_CLUSTER'],
        message: `names "${env.DEFAULT_MANAGEMENT_CLUSTER}", which is not in MANAGEMENT_CLUSTERS (${known.join(', ')})`,
      });
  } else if (env.KUBECONFIG && env.MANAGEMENT_CLUSTER_ENDPOINT) {
    problems.push({
      path: ['KUBECONFIG'],
      message: 'and MANAGEMENT_CLUSTER_ENDPOINT are both set; set only one',
    });
  } else if (env.MANAGEMENT_CLUSTER_ENDPOINT) {
    // The single-cluster variables obey the rules of a MANAGEMENT_CLUSTERS entry.
    const wrong = googleEndpointProblem(
      env.MANAGEMENT_CLUSTER_ENDPOINT,
      env.MANAGEMENT_CLUSTER_CA_CERT !== undefined,
      'MANAGEMENT_CLUSTER_CA_CERT',
    );
    if (wrong)
      problems.push({
        path: [
          wrong.field === 'endpoint' ? 'MANAGEMENT_CLUSTER_ENDPOINT' : 'MANAGEMENT_CLUSTER_CA_CERT',
        ],
        message: wrong.message,
      });
  }
  const pushes = env.MANAGEMENT_NAMESPACE !== undefined && env.SKIP_KUBERNETES !== true;
  const { clusters, defaultName } = configuredClusters(env);
  const several = Object.keys(clusters).length > 1;
  if (pushes && several && !env.MANAGEMENT_CLUSTER && !defaultName)
    problems.push({
      path: ['DEFAULT_MANAGEMENT_CLUSTER'],
      message: `is required when MANAGEMENT_CLUSTERS has several entries (${Object.keys(clusters).join(', ')}) and the execution names no MANAGEMENT_CLUSTER`,
    });
  return problems;
}
