import * as z from 'zod';
import { principalOf, type Principal } from '../common/google-caller';
import { IamModel } from '../common/iam/iam-model';
import type { IamConfigInput } from '../common/iam/iam-config';
import type { UserInfo } from './authentication';
import type { ResourceAttributes } from './rbac/authorize';
import { forbiddenByGoogle } from './status';

// GKE's IAM layer, in front of and beside RBAC, for requests authenticated as a Google identity
// (https://cloud.google.com/kubernetes-engine/docs/how-to/role-based-access-control, "Interaction
// with Identity and Access Management"; https://cloud.google.com/kubernetes-engine/docs/how-to/iam;
// https://cloud.google.com/kubernetes-engine/docs/concepts/access-control):
//
// 1. Let in: GKE users need at minimum container.clusters.get in the project that contains the
//    cluster; it lets them authenticate to the project's clusters but authorizes no action inside
//    them. Without it the request is refused before RBAC is asked.
// 2. Authorize: IAM and RBAC work together and a user may act with sufficient permissions in
//    either; GKE checks RBAC first, then IAM. A request RBAC does not allow is allowed when a role
//    the principal holds on the cluster's project has the matching container.RESOURCE.VERB
//    permission (https://cloud.google.com/kubernetes-engine/docs/reference/api-permissions). So a
//    project-level roles/container.developer or roles/editor gives back the Secret reads the job's
//    RBAC leaves out. Refused by both, GKE's 403 ends in `: requires one of ["container.pods.create"]
//    permission(s).` (as quoted in apache/airflow#37795).
//
// Only Google identities go through IAM. The gate (1) is part of authenticating a Google access
// token: static tokens, client certificates and Kubernetes service accounts never meet it, nor
// does an administrator impersonating someone. IAM authorization (2) is asked about the user a
// request acts as, as every authorizer is: a Google account, known to Kubernetes by its email
// (`kubectl auth can-i --as=JOB_EMAIL` therefore answers for RBAC and IAM, as
// docs/management-clusters.md, "Checking the job's rights" says), or a
// token without the email scope, known by its unique id; Kubernetes service accounts
// (system:serviceaccount:...) and other names hold nothing in IAM. Admission runs after
// authorization whoever allowed the request: the fence's ValidatingAdmissionPolicy still judges
// every write IAM let through (core-routes.ts and apis-router.ts admit a write after either
// authorizer allowed it).

/** `projects/PROJECT/locations/LOCATION/clusters/CLUSTER`, the cluster's IAM resource name. */
export const gkeClusterName = z
  .string()
  .regex(
    /^projects\/[a-z][a-z0-9-]{4,28}[a-z0-9]\/locations\/[a-z0-9-]+\/clusters\/[a-z]([a-z0-9-]{0,38}[a-z0-9])?$/,
    'must be projects/PROJECT/locations/LOCATION/clusters/CLUSTER',
  );

/** The permission a Google identity needs on the cluster before anything else is asked. */
export const CLUSTER_GET = 'container.clusters.get';

/**
 * Kubernetes request -> the IAM permission GKE checks for it, container.RESOURCE.VERB, one table.
 * https://cloud.google.com/kubernetes-engine/docs/reference/api-permissions lists e.g. for custom
 * resources: POST /apis/{path_to_custom_resource} container.thirdPartyObjects.create, DELETE of one
 * object or of the collection .delete, GET of one .get, GET of the collection .list. RESOURCE is
 * the Kubernetes resource as GKE's roles spell it (container.secrets.get, container.configMaps.list,
 * container.namespaces.get; https://cloud.google.com/iam/docs/roles-permissions/container); every
 * kind a CRD serves is thirdPartyObjects. The roles hold no .patch or .watch permission, only
 * create, delete, get, list and update: PATCH is .update like PUT, and a watch is the collection's
 * .list. Resources and subresources not in the table map to no permission: IAM then allows nothing
 * RBAC denied (this emulator's choice, rather than a guess).
 */
export const GKE_PERMISSION_TABLE = {
  verbs: {
    get: 'get',
    list: 'list',
    watch: 'list',
    create: 'create',
    update: 'update',
    patch: 'update',
    delete: 'delete',
    deletecollection: 'delete',
  } as Readonly<Record<string, string>>,
  /** By `resource` (core group) or `resource.group`. */
  resources: {
    secrets: 'secrets',
    namespaces: 'namespaces',
    configmaps: 'configMaps',
    'customresourcedefinitions.apiextensions.k8s.io': 'customResourceDefinitions',
  } as Readonly<Record<string, string>>,
  /** Any kind a CustomResourceDefinition serves (HostedClusters). */
  customResources: 'thirdPartyObjects',
} as const;

/** What a request asks, as authorizers see it, and whether a CRD serves the resource. */
export interface AuthorizationRequest extends ResourceAttributes {
  readonly customResource?: boolean;
}

/** The IAM permission GKE checks for a request, or undefined when the table maps none. */
export function gkePermission(request: AuthorizationRequest): string | undefined {
  if (request.subresource) return undefined;
  const verb = GKE_PERMISSION_TABLE.verbs[request.verb];
  const resource = request.customResource
    ? GKE_PERMISSION_TABLE.customResources
    : GKE_PERMISSION_TABLE.resources[
        request.group === '' ? request.resource : `${request.resource}.${request.group}`
      ];
  return verb && resource ? `container.${resource}.${verb}` : undefined;
}

/** How IAM judged a request RBAC did not allow. */
export type IamJudgement =
  | { readonly allowed: true; readonly reason: string }
  /** `permission`: what GKE names in the 403 ("requires one of [...] permission(s)"). */
  | { readonly allowed: false; readonly permission?: string };

/** The IAM layer of one GKE cluster: its allow policies (and its ancestors') and its name. */
export class GkeIam {
  readonly model: IamModel;

  constructor(
    config: IamConfigInput,
    /** The cluster's resource name, `projects/P/locations/L/clusters/C`. */
    readonly cluster: string,
  ) {
    gkeClusterName.parse(cluster);
    this.model = new IamModel(config);
    const project = /^projects\/([^/]+)\//.exec(cluster)![1]!;
    if (!this.model.knowsProject(project))
      throw new Error(
        `the IAM configuration does not list the cluster's project ${project} (projects: id -> number)`,
      );
  }

  /**
   * Refuses a Google identity without container.clusters.get on the cluster (on it or inherited
   * from the project), before RBAC, with the wording Google's APIs use for a missing permission
   * (e.g. `Required "container.clusters.get" permission(s) for "projects/P/locations/L/clusters/C".`,
   * as GKE's API answers get-credentials); anyone else passes.
   */
  admit(user: UserInfo): void {
    if (!user.google) return;
    if (this.held(this.principal(user), CLUSTER_GET)) return;
    throw forbiddenByGoogle(`Required "${CLUSTER_GET}" permission(s) for "${this.cluster}".`);
  }

  /** IAM's answer for a request RBAC denied: allowed by a held permission, or not. */
  judge(user: UserInfo, request: AuthorizationRequest): IamJudgement {
    const principal = this.principal(user);
    if (principal.members.length === 0) return { allowed: false };
    const permission = gkePermission(request);
    if (permission === undefined) return { allowed: false };
    return this.held(principal, permission)
      ? {
          allowed: true,
          reason: `IAM: allowed by ${permission} on ${this.cluster} (a role granted on the cluster's project)`,
        }
      : { allowed: false, permission };
  }

  /**
   * The IAM principal a Kubernetes user stands for: the Google account of its token, or (asked
   * about an impersonated user) the account its email user name names; none for anyone else.
   */
  private principal(user: UserInfo): Principal {
    const serviceAccountEmail = (id: string) => this.model.serviceAccountEmail(id);
    if (user.google) return principalOf(user.google, serviceAccountEmail);
    return z.email().safeParse(user.username).success
      ? principalOf({ uniqueId: '', email: user.username, scopes: [] }, () => undefined)
      : { members: [] };
  }

  private held(principal: Principal, permission: string): boolean {
    return this.model.held(principal, this.cluster, [permission]).length > 0;
  }
}
