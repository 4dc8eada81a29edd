import { NoAuth, TokenFileAuth } from '../../../shared/hyperfleet/auth';
import { HyperFleetClient } from '../../../shared/hyperfleet/client';
import type { CallerIdentity } from '../../../shared/hyperfleet/config';
import type { Logger } from '../../../shared/logging/logger';
import { nullLogger } from '../../../shared/logging/null-logger';

/** The organisation local tools (tests, demo, bench) create clusters as when tenancy is on. */
export const LOCAL_ORG = 'local-dev';

export interface LocalHyperFleetClientOptions {
  readonly retryAttempts?: number;
  readonly timeoutMs?: number;
  /** The stack's bearer token file (HYPERFLEET_API_AUTH_TOKEN_PATH); none: no Authorization. */
  readonly tokenFile?: string;
  /**
   * `system` (default) reads and PUTs statuses like Sentinel and adapters; `tenant` creates,
   * patches and deletes clusters as LOCAL_ORG, as a user would.
   */
  readonly caller?: 'system' | 'tenant';
  /** Sent as User-Agent, naming the local tool in the emulator's request log (default `local`). */
  readonly userAgent?: string;
}

/** The real HyperFleet client for a local emulator, API v1, with the stack's token and tenancy headers. */
export function localHyperFleetClient(
  baseUrl: string,
  logger: Logger,
  options: LocalHyperFleetClientOptions = {},
): HyperFleetClient {
  const caller: CallerIdentity =
    options.caller === 'tenant'
      ? { kind: 'org', header: 'X-HyperFleet-Org', org: LOCAL_ORG }
      : { kind: 'system', header: 'X-HyperFleet-System' };
  return new HyperFleetClient(
    {
      baseUrl,
      version: 'v1',
      timeoutMs: options.timeoutMs ?? 5000,
      retryAttempts: options.retryAttempts ?? 2,
      auth: options.tokenFile ? { kind: 'token-file', path: options.tokenFile } : { kind: 'none' },
      caller,
    },
    {
      auth: options.tokenFile ? new TokenFileAuth(options.tokenFile) : new NoAuth(),
      logger,
      userAgent: options.userAgent ?? 'local',
    },
  );
}

/**
 * The two callers a local tool needs on a running stack, both with the stack's token: a tenant
 * (a user creating clusters) and the system (reading and reporting as Sentinel and adapters do).
 */
export function localStackClients(stack: {
  readonly endpoints: { readonly hyperfleetApi: string };
  readonly env: { readonly HYPERFLEET_API_AUTH_TOKEN_PATH?: string };
}): { readonly tenant: HyperFleetClient; readonly system: HyperFleetClient } {
  const tokenFile = stack.env.HYPERFLEET_API_AUTH_TOKEN_PATH;
  const token = tokenFile ? { tokenFile } : {};
  return {
    tenant: localHyperFleetClient(stack.endpoints.hyperfleetApi, nullLogger, {
      caller: 'tenant',
      ...token,
    }),
    system: localHyperFleetClient(stack.endpoints.hyperfleetApi, nullLogger, token),
  };
}
