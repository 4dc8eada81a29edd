import { status } from '@grpc/grpc-js';
import { GrpcError } from '../../common/grpc-error';
import {
  callerOf,
  MISSING_CREDENTIALS_MESSAGE,
  UNAUTHENTICATED_MESSAGE,
  type Caller,
} from '../../common/google-caller';
import type { IamModel } from '../../common/iam/iam-model';
import { PERMISSION } from '../../common/iam/roles';
import { requiredPermission, secretManagerNameParts } from './rpc-permissions';

/**
 * IAM in front of the Secret Manager emulator: every call with a bearer token is authorized as
 * Secret Manager authorizes it, before the method looks at its resource (so a caller without the
 * permission gets PERMISSION_DENIED whether or not the resource exists, and learns nothing about
 * it: "... denied for resource '...' (or it may not exist)"). Calls without credentials are the
 * emulator's own, unless IAM is enforced: then UNAUTHENTICATED, as Google answers them.
 */
export class SecretManagerIam {
  constructor(
    readonly model: IamModel,
    private readonly tokenInfoUrl: string,
    private readonly enforce: boolean = false,
  ) {}

  /** Throws UNAUTHENTICATED or PERMISSION_DENIED, or resolves when the call may go on. */
  async authorize(
    method: string,
    request: Readonly<Record<string, unknown>>,
    authorization: string | undefined,
  ): Promise<void> {
    const caller = await this.caller(authorization);
    if (caller.kind !== 'principal') {
      if (this.enforce) throw new GrpcError(status.UNAUTHENTICATED, MISSING_CREDENTIALS_MESSAGE);
      return;
    }
    const required = requiredPermission(method, request);
    if (!required) return;
    const [held] = this.model.held(caller.principal, required.resource, [required.permission]);
    if (held === undefined)
      throw new GrpcError(
        status.PERMISSION_DENIED,
        `Permission '${required.permission}' denied for resource '${required.resource}' (or it may not exist).`,
      );
  }

  /**
   * TestIamPermissions on a secret: the subset of the permissions the caller holds on it. "If the
   * secret does not exist, this call returns an empty set of permissions, not a NOT_FOUND error"
   * (https://cloud.google.com/secret-manager/docs/reference/rest/v1/projects.secrets/testIamPermissions);
   * no permission is needed to ask. Permissions with wildcards are refused, as IAM refuses them.
   */
  async testIamPermissions(
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
    const caller = await this.caller(authorization);
    if (caller.kind !== 'principal' && this.enforce)
      throw new GrpcError(status.UNAUTHENTICATED, MISSING_CREDENTIALS_MESSAGE);
    if (!secretExists(resource)) return { permissions: [] };
    if (caller.kind !== 'principal') return { permissions };
    return { permissions: this.model.held(caller.principal, resource, permissions) };
  }

  /** The caller of a request; throws UNAUTHENTICATED for a token Google would not accept. */
  private async caller(authorization: string | undefined): Promise<Caller> {
    const caller = await callerOf(authorization, this.tokenInfoUrl, (id) =>
      this.model.serviceAccountEmail(id),
    );
    if (caller.kind === 'invalid')
      throw new GrpcError(status.UNAUTHENTICATED, UNAUTHENTICATED_MESSAGE);
    return caller;
  }
}
