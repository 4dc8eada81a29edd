import { z } from 'zod';
import { duration, positiveIntWithDefault } from '../config/durations';
import { GoogleIdTokenAuth, NoAuth, TokenFileAuth, type AuthHeaderProvider } from './auth';

/** HyperFleet's own names for the API settings; compose into a component's env schema. */
export const hyperFleetApiEnvShape = {
  HYPERFLEET_API_BASE_URL: z.url({
    protocol: /^https?$/,
    message: 'must be the API base URL, e.g. http://hyperfleet-api:8000',
  }),
  HYPERFLEET_API_VERSION: z
    .string()
    .regex(/^v\d+$/, 'must be an API version such as v1')
    .default('v1'),
  HYPERFLEET_API_TIMEOUT: duration('10s'),
  HYPERFLEET_API_RETRY_ATTEMPTS: positiveIntWithDefault(3),
  HYPERFLEET_API_AUTH_TOKEN_PATH: z.string().optional(),
  HYPERFLEET_API_AUDIENCE: z.string().optional(),
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
  };
}

/** The provider for a configured authentication mode. */
export function authProviderFor(config: HyperFleetApiConfig['auth']): AuthHeaderProvider {
  if (config.kind === 'token-file') return new TokenFileAuth(config.path);
  if (config.kind === 'google-id-token') return new GoogleIdTokenAuth(config.audience);
  return new NoAuth();
}
