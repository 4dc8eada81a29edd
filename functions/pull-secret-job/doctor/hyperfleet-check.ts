import { ConfigError } from '../../../shared/errors';
import { HyperFleetClient } from '../../../shared/hyperfleet/client';
import { authProviderFor, type HyperFleetApiConfig } from '../../../shared/hyperfleet/config';
import {
  HyperFleetEndpointError,
  HyperFleetInvalidRequestError,
  HyperFleetUnauthorizedError,
  HyperFleetUnavailableError,
} from '../../../shared/hyperfleet/errors';
import type { Cluster } from '../../../shared/hyperfleet/schemas';
import type { Logger } from '../../../shared/logging/logger';
import { fail, ok, type CheckResult } from './check';

const NAME = 'hyperfleet-api';

/** What one cheap authenticated read (list clusters, page size 1) gave. */
export type HyperFleetAnswer =
  | { readonly kind: 'listed'; readonly total: number }
  | { readonly kind: 'unconfigured' }
  | { readonly kind: 'token-unreadable'; readonly detail: string }
  | {
      readonly kind: 'refused';
      readonly status: number;
      readonly code?: string;
      readonly detail?: string;
    }
  | { readonly kind: 'no-route'; readonly url: string; readonly code?: string }
  | { readonly kind: 'unreachable'; readonly detail: string }
  | { readonly kind: 'failing'; readonly status: number; readonly detail?: string };

/** How the job calls the API, for the detail and the fixes (never the token). */
export interface HyperFleetSetting {
  readonly baseUrl?: string;
  readonly auth: 'token-file' | 'google-id-token' | 'none';
  readonly tokenPath?: string;
  readonly caller: string;
}

/** The verdict on the HyperFleet API, with a fix for each way it fails (pure). */
export function judgeHyperFleet(answer: HyperFleetAnswer, setting: HyperFleetSetting): CheckResult {
  const url = setting.baseUrl ?? 'HYPERFLEET_API_BASE_URL';
  const token =
    setting.auth === 'token-file'
      ? `the token file HYPERFLEET_API_AUTH_TOKEN_PATH=${setting.tokenPath ?? ''} (the secret hyperfleet_api.auth_token_secret mounts)`
      : setting.auth === 'google-id-token'
        ? 'the Google ID token for HYPERFLEET_API_AUDIENCE'
        : 'no credentials (neither HYPERFLEET_API_AUTH_TOKEN_PATH nor HYPERFLEET_API_AUDIENCE is set)';
  switch (answer.kind) {
    case 'listed':
      return ok(
        NAME,
        `GET ${url}/api/hyperfleet/…/clusters?size=1 answered (${answer.total} cluster${answer.total === 1 ? '' : 's'} in total) as ${setting.caller}, with ${setting.auth === 'token-file' ? 'the token file' : setting.auth === 'google-id-token' ? 'a Google ID token' : 'no credentials'}`,
      );
    case 'unconfigured':
      return fail(NAME, 'HYPERFLEET_API_BASE_URL is not set', {
        problem: 'The job has no HyperFleet API to read cluster specs from.',
        resource: 'the job variable HYPERFLEET_API_BASE_URL (Terraform hyperfleet_api.base_url)',
        action:
          'Set hyperfleet_api.base_url and terraform apply (docs/configuration.md, "HyperFleet API (adapter, reporter and job)").',
      });
    case 'token-unreadable':
      return fail(NAME, `the API token could not be read: ${answer.detail}`, {
        problem: 'The job cannot read its HyperFleet API token.',
        resource: token,
        action:
          'Check hyperfleet_api.auth_token_secret names a secret with an enabled version and terraform apply (the job mounts it).',
      });
    case 'refused':
      return judgeRefused(answer, setting, token);
    case 'no-route':
      return fail(
        NAME,
        `404${answer.code ? ` ${answer.code}` : ''}: ${answer.url} is not a HyperFleet API route`,
        {
          problem:
            'The base URL or API version names no HyperFleet API (wrong host, port, path or version).',
          resource: `HYPERFLEET_API_BASE_URL=${url} and HYPERFLEET_API_VERSION`,
          action:
            'Set hyperfleet_api.base_url to scheme, host and port only (no path) and hyperfleet_api.version (e.g. v1), then terraform apply; docs/operations.md, "Troubleshooting", "hyperfleet-api-misconfigured".',
        },
      );
    case 'unreachable':
      return fail(NAME, `no answer from ${url}: ${answer.detail}`, {
        problem: 'The job cannot reach the HyperFleet API (DNS, connection, TLS or timeout).',
        resource: `HYPERFLEET_API_BASE_URL=${url}, and the job's network egress`,
        action:
          'Check the URL resolves and answers from the job (a private API needs the network variable: Direct VPC or a connector; docs/deployment.md, "Terraform variables").',
      });
    case 'failing':
      return fail(
        NAME,
        `${answer.status}: the API is failing${answer.detail ? `: ${answer.detail}` : ''}`,
        {
          problem: `The HyperFleet API answered ${answer.status} after retries.`,
          resource: `the HyperFleet API at ${url}`,
          action:
            "Look at the API's health and logs (the problem body's trace_id names its request).",
        },
      );
  }
}

/** The API refused the job: its credentials (401), or its tenancy or rights (403). */
function judgeRefused(
  answer: Extract<HyperFleetAnswer, { kind: 'refused' }>,
  setting: HyperFleetSetting,
  token: string,
): CheckResult {
  return answer.status === 401
    ? fail(NAME, `401 ${answer.code ?? ''}: the API does not accept the job's credentials`.trim(), {
        problem:
          'The HyperFleet API refused the token (401): missing, expired or not valid for this API.',
        resource: token,
        action:
          'Put a valid token in hyperfleet_api.auth_token_secret (a new secret version) or set hyperfleet_api.audience; docs/operations.md, "Troubleshooting", "HyperFleetUnauthorized / 401 HYPERFLEET-AUT-001".',
      })
    : fail(NAME, `403 ${answer.code ?? ''}: the API refused the job's tenancy or rights`.trim(), {
        problem: `The HyperFleet API authenticated the job but refused it (403) as ${setting.caller}.`,
        resource:
          'HYPERFLEET_API_SYSTEM_HEADER / HYPERFLEET_API_ORG_HEADER / HYPERFLEET_API_ORG (Terraform hyperfleet_api.system_header, org_header, org)',
        action:
          'Set hyperfleet_api.system_header to the API\'s server.tenant.system_header and terraform apply; docs/operations.md, "Troubleshooting", "403 HYPERFLEET-AUZ-001".',
      });
}

/** What the API's failure says, as a HyperFleetAnswer (every error the client throws). */
export function answerOfError(error: unknown): HyperFleetAnswer {
  if (
    error instanceof HyperFleetUnauthorizedError ||
    error instanceof HyperFleetInvalidRequestError
  )
    return {
      kind: 'refused',
      status: error.failure.status ?? 0,
      ...(error.failure.code ? { code: error.failure.code } : {}),
      ...(error.failure.detail ? { detail: error.failure.detail } : {}),
    };
  if (error instanceof HyperFleetEndpointError)
    return {
      kind: 'no-route',
      url: error.failure.url ?? error.failure.path,
      ...(error.failure.code ? { code: error.failure.code } : {}),
    };
  if (error instanceof HyperFleetUnavailableError)
    return error.failure.status === undefined
      ? { kind: 'unreachable', detail: error.failure.detail ?? 'no response' }
      : {
          kind: 'failing',
          status: error.failure.status,
          ...(error.failure.detail ? { detail: error.failure.detail } : {}),
        };
  if (error instanceof ConfigError) return { kind: 'unconfigured' };
  return {
    kind: 'token-unreadable',
    detail: error instanceof Error ? error.message : String(error),
  };
}

/** How the configuration calls the API, for the verdict. */
export function hyperFleetSetting(config: HyperFleetApiConfig | undefined): HyperFleetSetting {
  if (!config) return { auth: 'none', caller: 'nobody' };
  const caller =
    config.caller.kind === 'system'
      ? `a system component (${config.caller.header}: true)`
      : config.caller.kind === 'org'
        ? `organisation ${config.caller.org} (${config.caller.header})`
        : 'a caller without tenancy headers';
  return {
    baseUrl: config.baseUrl,
    auth: config.auth.kind,
    ...(config.auth.kind === 'token-file' ? { tokenPath: config.auth.path } : {}),
    caller,
  };
}

/** The client the doctor reads the API with, as the job's. */
export function hyperFleetClient(config: HyperFleetApiConfig, logger: Logger): HyperFleetClient {
  return new HyperFleetClient(config, { auth: authProviderFor(config.auth), logger });
}

/** The cheap authenticated read: one page of one cluster. */
export async function probeHyperFleet(
  client: HyperFleetClient | undefined,
): Promise<HyperFleetAnswer> {
  if (!client) return { kind: 'unconfigured' };
  try {
    const page = await client.listClusters({ size: 1 });
    return { kind: 'listed', total: page.total };
  } catch (error) {
    return answerOfError(error);
  }
}

/** Every cluster, for --all-projects and the secrets to test on; undefined when the API fails. */
export async function listClusters(
  client: HyperFleetClient | undefined,
): Promise<Cluster[] | undefined> {
  if (!client) return undefined;
  try {
    return await client.listAllClusters();
  } catch {
    return undefined;
  }
}
