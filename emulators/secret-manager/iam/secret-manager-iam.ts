import { status } from '@grpc/grpc-js';
import { GrpcError } from '../../common/grpc-error';
import { IamGuard, type PermissionTable } from '../../common/iam/iam-guard';
import type { IamModel } from '../../common/iam/iam-model';
import { PERMISSION } from '../../common/iam/roles';
import { requiredPermission, secretManagerNameParts } from './rpc-permissions';

/** The permission each Secret Manager RPC needs (rpc-permissions.ts), as the common guard takes it. */
export const secretManagerPermissions: PermissionTable = (method, request) => {
  const required = requiredPermission(method, request);
  return required ? [required] : [];
};

/**
 * Secret Manager's IAM guard (iam-guard.ts): its calls authorized before the method looks at its
 * resource, PERMISSION_DENIED in Secret Manager's words ("... denied for resource '...' (or it may
 * not exist)").
 */
export function secretManagerGuard(model: IamModel, tokenInfoUrl: string, enforce: boolean) {
  return new IamGuard({
    model,
    tokenInfoUrl,
    enforce,
    deniedMessage: (need) =>
      `Permission '${need.permission}' denied for resource '${need.resource}' (or it may not exist).`,
  });
}

/**
 * TestIamPermissions on a secret: the subset of the permissions the caller holds on it. "If the
 * secret does not exist, this call returns an empty set of permissions, not a NOT_FOUND error"
 * (https://cloud.google.com/secret-manager/docs/reference/rest/v1/projects.secrets/testIamPermissions);
 * no permission is needed to ask. Permissions with wildcards are refused, as IAM refuses them.
 */
export async function testIamPermissions(
  guard: IamGuard,
  request: Readonly<Record<string, unknown>>,
  authorization: string | undefined,
  secretExists: (name: string) => boolean,
): Promise<{ permissions: string[] }> {
  const resource = typeof request.resource === 'string' ? request.resource : '';
  const target = secretManagerNameParts(resource);
  if (!target || target.secret === undefined || target.version !== undefined)
    throw new GrpcError(
      status.INVALID_ARGUMENT,
      `Invalid resource field value in the request. resource [${resource}] must be projects/{project}/secrets/{secret}.`,
    );
  const permissions = Array.isArray(request.permissions)
    ? request.permissions.filter((p): p is string => typeof p === 'string')
    : [];
  const malformed = permissions.find((p) => !PERMISSION.test(p));
  if (malformed !== undefined)
    throw new GrpcError(
      status.INVALID_ARGUMENT,
      `Permission ${malformed} is not valid: permissions with wildcards (*) or without service.resource.verb form are not allowed.`,
    );
  const caller = await guard.authenticate(authorization);
  if (!secretExists(resource)) return { permissions: [] };
  if (caller.kind !== 'principal') return { permissions };
  return { permissions: guard.model.held(caller.principal, resource, permissions) };
}
