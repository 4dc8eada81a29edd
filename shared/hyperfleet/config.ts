import * as z from 'zod';
import { duration, positiveIntWithDefault } from '../config/durations';
import { GoogleIdTokenAuth, NoAuth, TokenFileAuth, type AuthHeaderProvider } from './auth';

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
/** The API's rule for tenant dimension values. */
const TENANT_VALUE = /^[A-Za-z0-9._-]{1,63}$/;

/** Hosts a plain-http base URL may name: loopback (the local stack's emulator, on 127.0.0.1). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * https, or http to a loopback host: every call carries the API token and the job reads pull
 * secrets from the API, so nothing reaches a remote API in cleartext. Loopback is the local signal
 * because nothing but the host itself can be reached there (no variable to forget or to forge).
 */
function encryptedOrLoopback(value: string): boolean {
  if (!URL.canParse(value)) return true; // z.url reports it
  const url = new URL(value);
  return url.protocol !== 'http:' || LOOPBACK_HOSTS.has(url.hostname);
}

/** HyperFleet's own names for the API settings; compose into a component's env schema. */
export const hyperFleetApiEnvShape = {
  HYPERFLEET_API_BASE_URL: z
    .url({
      protocol: /^https?$/,
      message: 'must be the API base URL, e.g. https://hyperfleet-api.example.com',
    })
    .refine(encryptedOrLoopback, {
      message:
        'must be an https:// URL (the API token and pull secrets travel on it); http:// is accepted only for a loopback host (127.0.0.1, localhost, [::1]), as in the local stack',
    }),
  HYPERFLEET_API_VERSION: z
    .string()
    .regex(/^v\d+$/, 'must be an API version such as v1')
    .default('v1'),
  HYPERFLEET_API_TIMEOUT: duration('10s'),
  HYPERFLEET_API_RETRY_ATTEMPTS: positiveIntWithDefault(3),
  HYPERFLEET_API_AUTH_TOKEN_PATH: z.string().optional(),
  HYPERFLEET_API_AUDIENCE: z.string().optional(),
  // `none` sends no tenancy header (an empty value counts as unset, like every variable).
  HYPERFLEET_API_SYSTEM_HEADER: z
    .string()
    .regex(HEADER_NAME, 'must be an HTTP header name such as X-HyperFleet-System, or none')
    .default('X-HyperFleet-System'),
  HYPERFLEET_API_ORG_HEADER: z
    .string()
    .regex(HEADER_NAME, 'must be an HTTP header name such as X-HyperFleet-Org')
    .default('X-HyperFleet-Org'),
  HYPERFLEET_API_ORG: z
    .string()
    .regex(TENANT_VALUE, 'must be 1-63 characters of letters, digits, ".", "_" or "-"')
    .optional(),
};

type Shape = z.output<z.ZodObject<typeof hyperFleetApiEnvShape>>;

/** How to reach and authenticate to the HyperFleet API. */
export interface HyperFleetApiConfig {
  readonly baseUrl: string;
  readonly version: string;
  readonly timeoutMs: number;
  readonly retryAttempts: number;
  readonly auth:
    | { kind: 'none' }
    | { kind: 'token-file'; path: string }
    | { kind: 'google-id-token'; audience: string };
  /** Who we are to the API's tenancy check; sent on every call (the API ignores it when off). */
  readonly caller: CallerIdentity;
}

/**
 * A system component (`<header>: true`; may GET/list and PUT statuses), a tenant (`<header>: org`),
 * or no tenancy header at all (HYPERFLEET_API_SYSTEM_HEADER=none).
 */
export type CallerIdentity =
  | { readonly kind: 'system'; readonly header: string }
  | { readonly kind: 'org'; readonly header: string; readonly org: string }
  | { readonly kind: 'none' };

/** The tenancy headers for a caller. */
export function callerHeaders(caller: CallerIdentity): Record<string, string> {
  if (caller.kind === 'system') return { [caller.header]: 'true' };
  if (caller.kind === 'org') return { [caller.header]: caller.org };
  return {};
}

export function toHyperFleetApiConfig(env: Shape): HyperFleetApiConfig {
  return {
    baseUrl: env.HYPERFLEET_API_BASE_URL.replace(/\/+$/, ''),
    version: env.HYPERFLEET_API_VERSION,
    timeoutMs: env.HYPERFLEET_API_TIMEOUT,
    retryAttempts: env.HYPERFLEET_API_RETRY_ATTEMPTS,
    auth: env.HYPERFLEET_API_AUTH_TOKEN_PATH
      ? { kind: 'token-file', path: env.HYPERFLEET_API_AUTH_TOKEN_PATH }
      : env.HYPERFLEET_API_AUDIENCE
        ? { kind: 'google-id-token', audience: env.HYPERFLEET_API_AUDIENCE }
        : { kind: 'none' },
    caller: env.HYPERFLEET_API_ORG
      ? { kind: 'org', header: env.HYPERFLEET_API_ORG_HEADER, org: env.HYPERFLEET_API_ORG }
      : env.HYPERFLEET_API_SYSTEM_HEADER === 'none'
        ? { kind: 'none' }
        : { kind: 'system', header: env.HYPERFLEET_API_SYSTEM_HEADER },
  };
}

/** The provider for a configured authentication mode. */
export function authProviderFor(config: HyperFleetApiConfig['auth']): AuthHeaderProvider {
  if (config.kind === 'token-file') return new TokenFileAuth(config.path);
  if (config.kind === 'google-id-token') return new GoogleIdTokenAuth(config.audience);
  return new NoAuth();
}
