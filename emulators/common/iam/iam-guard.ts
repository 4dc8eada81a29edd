import { status, type Metadata } from '@grpc/grpc-js';
import {
  callerOf,
  MISSING_CREDENTIALS_MESSAGE,
  UNAUTHENTICATED_MESSAGE,
  type Caller,
} from '../google-caller';
import { GrpcError } from '../grpc-error';
import type { UnaryHandler } from '../grpc-server';
import type { IamConfigInput } from './iam-config';
import { IamModel } from './iam-model';

/** One permission a request needs, and the resource IAM checks it on. */
export interface RequiredPermission {
  readonly permission: string;
  /** The resource name checked (policies on it and its ancestors apply), and the one the denial names. */
  readonly resource: string;
  /** What the denial names instead, where the service names it otherwise (a service account's email). */
  readonly named?: string;
}

/** What a method needs for one request, in the order the service checks it ([] : nothing to check). */
export type PermissionTable = (
  method: string,
  request: Readonly<Record<string, unknown>>,
) => readonly RequiredPermission[];

export interface IamGuardOptions {
  readonly model: IamModel;
  /** Where bearer tokens are looked up (the metadata server's /tokeninfo, as Google's token info). */
  readonly tokenInfoUrl: string;
  /**
   * Refuse calls without credentials (UNAUTHENTICATED), as every Google API does. Off: such calls
   * are the emulator's own (the local stack's and the tests' clients in emulator mode send none),
   * as LocalStack checks IAM only with ENFORCE_IAM
   * (https://docs.localstack.cloud/aws/capabilities/security-testing/iam-policy-enforcement/).
   */
  readonly enforce: boolean;
  /** The service's own wording of PERMISSION_DENIED (each Google API words it its own way). */
  readonly deniedMessage: (required: RequiredPermission) => string;
}

/**
 * IAM in front of a Google API emulator, for the gRPC and REST surfaces alike: the caller known
 * from its bearer token as Google knows it (token info), then every permission the method needs,
 * checked before the method looks at its resource, so a caller without the permission gets
 * PERMISSION_DENIED whether or not the resource exists and learns nothing about it (each
 * service's message says "(or ... may not exist)").
 */
export class IamGuard {
  constructor(private readonly options: IamGuardOptions) {}

  get model(): IamModel {
    return this.options.model;
  }

  get enforced(): boolean {
    return this.options.enforce;
  }

  /** Throws UNAUTHENTICATED or PERMISSION_DENIED, or resolves when the call may go on. */
  async authorize(
    required: readonly RequiredPermission[],
    authorization: string | undefined,
  ): Promise<void> {
    this.check(await this.authenticate(authorization), required);
  }

  /**
   * Throws PERMISSION_DENIED naming the first permission `caller` lacks; a call without
   * credentials (allowed only when IAM is not enforced) is the emulator's own and passes.
   */
  check(caller: Caller, required: readonly RequiredPermission[]): void {
    if (caller.kind !== 'principal') return;
    for (const need of required) {
      const [held] = this.options.model.held(caller.principal, need.resource, [need.permission]);
      if (held === undefined)
        throw new GrpcError(status.PERMISSION_DENIED, this.options.deniedMessage(need));
    }
  }

  /**
   * The caller of a request: UNAUTHENTICATED for a token Google would not accept, and for no
   * token at all when IAM is enforced ("Request is missing required authentication credential").
   */
  async authenticate(authorization: string | undefined): Promise<Caller> {
    const caller = await callerOf(authorization, this.options.tokenInfoUrl, (id) =>
      this.options.model.serviceAccountEmail(id),
    );
    if (caller.kind === 'invalid')
      throw new GrpcError(status.UNAUTHENTICATED, UNAUTHENTICATED_MESSAGE);
    if (caller.kind === 'unauthenticated' && this.options.enforce)
      throw new GrpcError(status.UNAUTHENTICATED, MISSING_CREDENTIALS_MESSAGE);
    return caller;
  }
}

/** The `authorization` metadata of a gRPC call (what call credentials and gax's headers send). */
export function authorizationOf(metadata: Metadata): string | undefined {
  const value = metadata.get('authorization')[0];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Every handler behind the guard: IAM first (the permissions `table` names for the request),
 * then the method's own rules. Without a guard the handlers are returned as they are.
 */
export function guardHandlers(
  handlers: Readonly<Record<string, UnaryHandler>>,
  guard: IamGuard | undefined,
  table: PermissionTable,
): Record<string, UnaryHandler> {
  if (!guard) return { ...handlers };
  return Object.fromEntries(
    Object.entries(handlers).map(([method, handler]) => [
      method,
      async (request: Record<string, unknown>, metadata: Metadata) => {
        await guard.authorize(table(method, request), authorizationOf(metadata));
        return handler(request, metadata);
      },
    ]),
  );
}

/**
 * A resource name cut before its first `-` ("any") segment: what IAM checks a wildcard list on
 * (`.../jobs/-` lists every job's executions, so it needs the permission on the location, not on
 * one job). A name without one is returned as it is.
 */
export function beforeWildcard(name: string): string {
  const parts = name.split('/');
  const wildcard = parts.findIndex((part, index) => index % 2 === 1 && part === '-');
  return wildcard < 0 ? name : parts.slice(0, wildcard - 1).join('/');
}

/** The IAM options of a Google API emulator (`--iam-file`, `--google-token-info`, `--enforce-iam`). */
export interface GoogleIamOptions {
  /**
   * Allow policies (iam-config.ts). With them, every call that carries a bearer token is
   * authorized as the service authorizes it, the caller known from `googleTokenInfoUrl`.
   */
  readonly iam?: IamConfigInput;
  /** Where bearer tokens are looked up (the metadata server's /tokeninfo); required with `iam`. */
  readonly googleTokenInfoUrl?: string;
  /** Calls without credentials are UNAUTHENTICATED too (IamGuardOptions.enforce); needs `iam`. */
  readonly enforceIam?: boolean;
}

/** The guard an emulator's IAM options ask for; undefined without `iam`. */
export function iamGuardFor(
  emulator: string,
  options: GoogleIamOptions,
  deniedMessage: IamGuardOptions['deniedMessage'],
): IamGuard | undefined {
  if (options.enforceIam && !options.iam)
    throw new Error(`the ${emulator} emulator enforces IAM only with allow policies (--iam-file)`);
  if (!options.iam) return undefined;
  if (!options.googleTokenInfoUrl)
    throw new Error(
      `the ${emulator} emulator needs googleTokenInfoUrl (--google-token-info) to check IAM`,
    );
  return new IamGuard({
    model: new IamModel(options.iam),
    tokenInfoUrl: options.googleTokenInfoUrl,
    enforce: options.enforceIam ?? false,
    deniedMessage,
  });
}
