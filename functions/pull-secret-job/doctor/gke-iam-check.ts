import { DOCTOR_SECTION, fail, ok, skip, type CheckResult } from './check';
import { resourceManagerUnanswered, type ProjectRightsAnswer } from './secret-manager-check';

// GKE authorizes a Google identity's Kubernetes requests with IAM as well as RBAC: a request RBAC
// does not allow is allowed when a role the identity holds on the cluster's project has the
// matching container.* permission
// (https://cloud.google.com/kubernetes-engine/docs/how-to/role-based-access-control, "Interaction
// with Identity and Access Management"; permissions per request:
// https://cloud.google.com/kubernetes-engine/docs/reference/api-permissions). GKE's roles can be
// granted on a project (or inherited from its folders and organization), not on one cluster, so the
// project's testIamPermissions shows them all. Terraform grants the job roles/container.clusterViewer
// there, which holds no container.secrets.* permission: what the job may do in a cluster is RBAC's
// (create, patch, delete Secrets) and the fence's. Any other role with container.secrets.* undoes
// that design, silently: get and list give back the reads RBAC leaves out (every hosted cluster's
// pull secret and every other Secret in the cluster), which no admission policy judges; create,
// update and delete are judged by the fence but are no longer RBAC's to narrow.

/** Reads: the fence cannot refuse them, RBAC must not allow them, nor may IAM. */
export const GKE_SECRET_READS = ['container.secrets.get', 'container.secrets.list'] as const;
/** Writes beyond what RBAC gives and decides (create, patch, delete; patch is IAM's update). */
export const GKE_SECRET_WRITES = [
  'container.secrets.create',
  'container.secrets.update',
  'container.secrets.delete',
] as const;
/**
 * Asked only to tell which role holds the Secret permissions: container.clusters.create is held by
 * roles/container.admin and roles/editor (and roles/owner) but not roles/container.developer;
 * resourcemanager.projects.setIamPolicy by roles/owner among them
 * (https://cloud.google.com/kubernetes-engine/docs/how-to/iam#predefined,
 * https://cloud.google.com/iam/docs/roles-overview#basic).
 */
export const GKE_ROLE_MARKERS = [
  'container.clusters.create',
  'resourcemanager.projects.setIamPolicy',
] as const;

/** Everything the doctor asks Resource Manager about a management cluster's project. */
export const GKE_ASKED = [...GKE_SECRET_READS, ...GKE_SECRET_WRITES, ...GKE_ROLE_MARKERS];

/** The predefined roles that hold what `held` shows, most likely first; a custom role may too. */
export function likelyRoles(held: readonly string[]): string[] {
  if (held.includes('resourcemanager.projects.setIamPolicy')) return ['roles/owner'];
  if (held.includes('container.clusters.create'))
    return ['roles/container.admin', 'roles/editor', 'roles/owner'];
  return ['roles/container.developer'];
}

const list = (permissions: readonly string[]) => permissions.join(', ');

/**
 * The job's IAM on a management cluster's project (pure): FAIL when it holds any
 * container.secrets.* permission, naming the role to remove. `source` says why this project was
 * asked (`--management-project`, or the platform project by default).
 */
export function judgeGkeIam(
  project: string,
  answer: ProjectRightsAnswer,
  identity: string,
  source: string,
): CheckResult {
  const name = `gke-iam ${project}`;
  switch (answer.kind) {
    case 'held': {
      const reads = GKE_SECRET_READS.filter((p) => answer.permissions.includes(p));
      const writes = GKE_SECRET_WRITES.filter((p) => answer.permissions.includes(p));
      if (reads.length === 0 && writes.length === 0)
        return ok(
          name,
          `no container.secrets.* permission held on projects/${project} (${source}): the job's rights in its clusters there are RBAC's and the fence's alone`,
        );
      const roles = likelyRoles(answer.permissions);
      const held = [...reads, ...writes];
      return fail(name, `holds ${list(held)} on projects/${project} through IAM`, {
        problem:
          reads.length > 0
            ? `GKE authorizes with IAM as well as RBAC: with ${list(reads)} the job's identity may read every Secret of every cluster in ${project} (other hosted clusters' pull secrets included), which its RBAC leaves out and no admission fence can refuse.`
            : `GKE authorizes with IAM as well as RBAC: with ${list(writes)} the job's Secret writes in ${project}'s clusters are no longer narrowed by its RBAC (the fence still judges them).`,
        resource: `projects/${project}: a role binding of ${identity} holding container.secrets.*, most likely ${roles.join(' or ')} (or a custom role; on the project or inherited from its folder or organization). List them: gcloud projects get-iam-policy ${project} --flatten='bindings[].members' --filter='bindings.members:serviceAccount:${identity}' --format='value(bindings.role)'`,
        action: `Remove that binding (gcloud projects remove-iam-policy-binding ${project} --member=serviceAccount:${identity} --role=ROLE); the job needs only roles/container.clusterViewer there, which Terraform grants (docs/management-clusters.md, "Reaching a management cluster").`,
      });
    }
    case 'no-access':
      return skip(name, `Resource Manager: ${answer.message}`, {
        problem: `The job's identity may see nothing of ${project} (it holds no role there, or there is no such project): nothing to check.`,
        resource: `projects/${project} (${source})`,
        action: `Give the management clusters' projects with --management-project P (${DOCTOR_SECTION}).`,
      });
    case 'api-off':
    case 'failed':
      return resourceManagerUnanswered(name, answer);
  }
}
