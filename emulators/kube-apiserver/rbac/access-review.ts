import * as z from 'zod';
import type { UserInfo } from '../authentication';
import type { Authorizer } from '../authorizer';
import type { ResourceType } from '../generic/resource-type';
import type { Obj } from '../object-book';
import { badRequest } from '../status';

/**
 * `authorization.k8s.io/v1` SelfSubjectAccessReview: "may I do this?" answered by the same
 * authorizers as the request itself, RBAC and a GKE cluster's IAM (what `kubectl auth can-i` posts,
 * with `--as` through impersonation). Create-only and never stored, as on the real server; every authenticated user
 * may create one (the bootstrap ClusterRole system:basic-user).
 */
export const SELF_SUBJECT_ACCESS_REVIEW_TYPE: ResourceType = {
  group: 'authorization.k8s.io',
  versions: ['v1'],
  plural: 'selfsubjectaccessreviews',
  singular: 'selfsubjectaccessreview',
  kind: 'SelfSubjectAccessReview',
  listKind: 'SelfSubjectAccessReviewList',
  shortNames: [],
  categories: [],
  namespaced: false,
  typeMetaFromUrl: true,
  statusSubresource: false,
  verbs: ['create'],
  normalise: (object) => object,
};

const reviewSchema = z.object({
  spec: z.object({
    resourceAttributes: z
      .object({
        namespace: z.string().optional(),
        verb: z.string().optional(),
        group: z.string().optional(),
        resource: z.string().optional(),
        subresource: z.string().optional(),
        name: z.string().optional(),
      })
      .optional(),
    nonResourceAttributes: z.object({ path: z.string(), verb: z.string() }).optional(),
  }),
});

/** The review with its status: allowed (and the RBAC reason) or not. */
export function reviewAccess(
  authorize: Authorizer,
  user: UserInfo,
  body: Obj,
  /** Whether a CRD serves `resource` in `group` (GKE's IAM names those thirdPartyObjects). */
  customResource: (group: string, resource: string) => boolean,
): Obj {
  const parsed = reviewSchema.safeParse(body);
  if (!parsed.success)
    throw badRequest(
      `invalid SelfSubjectAccessReview: ${parsed.error.issues[0]?.message ?? 'bad body'}`,
    );
  const { resourceAttributes: resource, nonResourceAttributes: nonResource } = parsed.data.spec;
  if ((resource === undefined) === (nonResource === undefined))
    throw badRequest(
      'SelfSubjectAccessReview.authorization.k8s.io is invalid: spec.resourceAttributes: Invalid value: exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
  // Non-resource URLs: discovery and health are open to every authenticated user (system:discovery).
  const decision = resource
    ? authorize(user, {
        verb: resource.verb ?? '',
        group: resource.group ?? '',
        resource: resource.resource ?? '',
        ...(resource.subresource ? { subresource: resource.subresource } : {}),
        ...(resource.name ? { name: resource.name } : {}),
        ...(resource.namespace ? { namespace: resource.namespace } : {}),
        customResource: customResource(resource.group ?? '', resource.resource ?? ''),
      })
    : nonResource!.verb === 'get'
      ? { allowed: true as const, reason: 'RBAC: allowed by ClusterRoleBinding "system:discovery"' }
      : { allowed: false as const };
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata: { creationTimestamp: null },
    spec: parsed.data.spec,
    status: decision.allowed ? { allowed: true, reason: decision.reason } : { allowed: false },
  };
}
