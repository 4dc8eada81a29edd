import type { UserInfo } from './authentication';
import type { ObjectTable } from './generic/object-table';
import type { AuthorizationRequest, GkeIam } from './gke-iam';
import { authorize } from './rbac/authorize';

/** An authorizer chain's answer: allowed and by what, or denied (and what IAM would have needed). */
export type Authorization =
  | { readonly allowed: true; readonly reason: string }
  | { readonly allowed: false; readonly iamPermission?: string };

/** Asks the cluster's authorizers about one request of `user`. */
export type Authorizer = (user: UserInfo, request: AuthorizationRequest) => Authorization;

/**
 * The cluster's authorization chain: RBAC over the stored roles and bindings, then, on a GKE
 * cluster with its IAM layer, IAM for Google identities RBAC did not allow (gke-iam.ts). Every
 * request, SelfSubjectAccessReview and impersonation check goes through the same chain, as the
 * real server's authorizers answer all three.
 */
export function clusterAuthorizer(objects: ObjectTable, iam?: GkeIam): Authorizer {
  return (user, request) => {
    const decision = authorize(objects, user, request);
    if (decision.allowed || !iam) return decision;
    const judgement = iam.judge(user, request);
    if (judgement.allowed) return judgement;
    return judgement.permission
      ? { allowed: false, iamPermission: judgement.permission }
      : { allowed: false };
  };
}
