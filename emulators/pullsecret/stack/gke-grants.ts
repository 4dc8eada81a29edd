import { derivedProjectNumber } from '../../common/derived-number';
import type { IamBinding, IamConfigInput } from '../../common/iam/iam-config';
import type { ManagementClusterMode } from './layout';

// What Terraform grants the job on the management clusters' projects, as GKE's IAM sees it
// (terraform/modules/pullsecret-adapter/cluster-access.tf, google_project_iam_member
// .job_management_cluster, with the roles of modules/management-clusters/main.tf, roles_by_kind):
// a cluster the job reaches at its own endpoint (kind "gke": the local ip and dns modes) gets
// roles/container.clusterViewer on its project, one grant per (project, role); a cluster reached
// through Connect Gateway gets roles/gkehub.gatewayEditor, which the gateway emulator checks
// itself (cluster-access.ts) and which holds no container.* permission.
// The same bindings go to the Kubernetes emulators' IAM layer (kube-apiserver/gke-iam.ts) and to
// the IAM behind Resource Manager's testIamPermissions (the Secret Manager emulator's), where the
// doctor asks what the job holds on the cluster's project.

/** The roles Terraform grants the job on a cluster's project, by kind (roles_by_kind). */
export const JOB_GKE_ROLES: Readonly<Record<'gke' | 'connect-gateway', readonly string[]>> = {
  gke: ['roles/container.clusterViewer'],
  'connect-gateway': [],
};

/** Terraform's kind of a local cluster: the job reaches ip and dns clusters at GKE's endpoint. */
export const clusterKind = (mode: ManagementClusterMode): 'gke' | 'connect-gateway' =>
  mode === 'connect-gateway' ? 'connect-gateway' : 'gke';

/** A GKE cluster's IAM resource name. */
export const gkeClusterResource = (project: string, location: string, name: string) =>
  `projects/${project}/locations/${location}/clusters/${name}`;

/**
 * The job's GKE grants for these clusters, and the IAM configuration that holds them (projects by
 * number as the Secret Manager emulator's IAM numbers them, and the job's account by unique id).
 */
export function gkeIam(options: {
  readonly clusters: readonly {
    readonly mode: ManagementClusterMode;
    readonly project: string;
  }[];
  readonly jobIdentity: string;
  /** Service accounts by numeric unique id (tokens without the email scope name only that). */
  readonly serviceAccounts?: Readonly<Record<string, string>>;
}): IamConfigInput {
  const grants = new Map<string, IamBinding>();
  for (const cluster of options.clusters)
    for (const role of JOB_GKE_ROLES[clusterKind(cluster.mode)])
      grants.set(`${cluster.project}/${role}`, {
        resource: `projects/${cluster.project}`,
        role,
        members: [`serviceAccount:${options.jobIdentity}`],
      });
  const projects = [...new Set(options.clusters.map((c) => c.project))];
  return {
    projects: Object.fromEntries(projects.map((p) => [p, derivedProjectNumber(p)])),
    serviceAccounts: { ...options.serviceAccounts },
    bindings: [...grants.values()],
  };
}

/** `base` with the GKE grants added (projects, service accounts and bindings of both). */
export function withGkeGrants(base: IamConfigInput, gke: IamConfigInput): IamConfigInput {
  return {
    ...base,
    projects: { ...gke.projects, ...base.projects },
    serviceAccounts: { ...gke.serviceAccounts, ...base.serviceAccounts },
    bindings: [...(base.bindings ?? []), ...(gke.bindings ?? [])],
  };
}
