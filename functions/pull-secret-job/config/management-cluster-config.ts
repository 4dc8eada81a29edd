import * as z from 'zod';
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
  /** The same list, read from the file MANAGEMENT_CLUSTERS_FILE names (management-clusters-file.ts). */
  readonly MANAGEMENT_CLUSTERS_FILE?: ManagementClusterSet | undefined;
  readonly DEFAULT_MANAGEMENT_CLUSTER?: string | undefined;
  readonly MANAGEMENT_CLUSTER?: string | undefined;
}

/** The variable that gave the list of management clusters, when one did. */
export function listVariable(
  env: ManagementClusterEnv,
): 'MANAGEMENT_CLUSTERS' | 'MANAGEMENT_CLUSTERS_FILE' | undefined {
  if (env.MANAGEMENT_CLUSTERS) return 'MANAGEMENT_CLUSTERS';
  return env.MANAGEMENT_CLUSTERS_FILE ? 'MANAGEMENT_CLUSTERS_FILE' : undefined;
}

/**
 * The configured clusters and the default, from MANAGEMENT_CLUSTERS, MANAGEMENT_CLUSTERS_FILE or
 * the single-cluster variables (exactly one of them: clusterSourceCheck).
 */
export function configuredClusters(env: ManagementClusterEnv): {
  readonly clusters: ManagementClusterSet;
  readonly defaultName?: string;
} {
  const list = env.MANAGEMENT_CLUSTERS ?? env.MANAGEMENT_CLUSTERS_FILE;
  if (list) {
    const names = Object.keys(list);
    const defaultName =
      env.DEFAULT_MANAGEMENT_CLUSTER ?? (names.length === 1 ? names[0] : undefined);
    return { clusters: list, ...(defaultName ? { defaultName } : {}) };
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
  const source = listVariable(env);
  if (source) {
    const known = Object.keys(configuredClusters(env).clusters);
    if (env.DEFAULT_MANAGEMENT_CLUSTER && !known.includes(env.DEFAULT_MANAGEMENT_CLUSTER))
      problems.push({
        path: ['DEFAULT_MANAGEMENT_CLUSTER'],
        message: `names "${env.DEFAULT_MANAGEMENT_CLUSTER}", which is not in ${source} (${known.join(', ')})`,
      });
  } else if (env.MANAGEMENT_CLUSTER_ENDPOINT && !env.KUBECONFIG) {
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
      message: `is required when ${source ?? 'MANAGEMENT_CLUSTERS'} has several entries (${Object.keys(clusters).join(', ')}) and the execution names no MANAGEMENT_CLUSTER`,
    });
  return problems;
}

const SINGLE_CLUSTER_VARIABLES = [
  'KUBECONFIG',
  'MANAGEMENT_CLUSTER_ENDPOINT',
  'MANAGEMENT_CLUSTER_CA_CERT',
] as const;

/**
 * Exactly one way of giving the management clusters: MANAGEMENT_CLUSTERS (inline),
 * MANAGEMENT_CLUSTERS_FILE (a mounted file), or the older single-cluster variables. Judged on
 * which variables are set, so it is reported even when one of them is invalid too (a missing file
 * and a leftover MANAGEMENT_CLUSTERS: the operator learns both at once).
 */
export function clusterSourceProblems(
  present: (variable: string) => boolean,
): { path: string[]; message: string }[] {
  const problems: { path: string[]; message: string }[] = [];
  const inline = present('MANAGEMENT_CLUSTERS');
  const file = present('MANAGEMENT_CLUSTERS_FILE');
  if (inline && file)
    problems.push({
      path: ['MANAGEMENT_CLUSTERS_FILE'],
      message:
        'and MANAGEMENT_CLUSTERS are both set, and the job would not know which list to use: keep one (MANAGEMENT_CLUSTERS_FILE holds any number of clusters; MANAGEMENT_CLUSTERS must fit in 32 KiB) and unset the other',
    });
  const list = file && !inline ? 'MANAGEMENT_CLUSTERS_FILE' : 'MANAGEMENT_CLUSTERS';
  const single = SINGLE_CLUSTER_VARIABLES.filter(present);
  if ((inline || file) && single.length > 0)
    problems.push({
      path: [list],
      message: `and ${single.join(', ')} are both set; describe every cluster as an entry of ${list} and unset ${single.join(', ')}`,
    });
  else if (present('KUBECONFIG') && present('MANAGEMENT_CLUSTER_ENDPOINT'))
    problems.push({
      path: ['KUBECONFIG'],
      message: 'and MANAGEMENT_CLUSTER_ENDPOINT are both set; set only one',
    });
  return problems;
}

/**
 * clusterSourceProblems as a check of an environment schema, run even when a variable failed its
 * own rule (`when`), unlike a superRefine.
 */
export const clusterSourceCheck = z.superRefine<Record<string, unknown>>(
  (env, ctx) => {
    for (const issue of clusterSourceProblems((name) => env[name] !== undefined))
      ctx.addIssue({ code: 'custom', ...issue });
  },
  { when: () => true },
);
