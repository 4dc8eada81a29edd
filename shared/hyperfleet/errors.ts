import { PermanentError, TransientError } from '../errors';

/** What the API said, for logs and messages. */
export interface ApiFailureDetail {
  readonly method: string;
  readonly path: string;
  /** The full URL that was called, so a configuration error can name it. */
  readonly url?: string;
  readonly status?: number;
  readonly code?: string;
  readonly detail?: string;
  /** How long a proxy asked us to wait (Retry-After on 429/503), in ms. */
  readonly retryAfterMs?: number;
  /** The problem body's `trace_id`: the API's correlation id, to find its own logs. */
  readonly traceId?: string;
}

function describe(failure: ApiFailureDetail): string {
  const status =
    failure.status === undefined
      ? 'no response'
      : `${failure.status}${failure.code ? ` ${failure.code}` : ''}`;
  return `HyperFleet API ${failure.method} ${failure.path} failed: ${status}${failure.detail ? `: ${failure.detail}` : ''}`;
}

/**
 * The API's codes for "this resource does not exist". NTF-001 is what the API answers for a
 * missing cluster today; NTF-002 is its catalogue's dedicated "Cluster Not Found" code, accepted
 * so that a handler switching to it does not turn "cluster gone" into a configuration alarm.
 */
const RESOURCE_NOT_FOUND_CODES = new Set(['HYPERFLEET-NTF-001', 'HYPERFLEET-NTF-002']);

/** 404 HYPERFLEET-NTF-001: the cluster does not exist (deleted, or never created). */
export class HyperFleetNotFoundError extends PermanentError {
  constructor(readonly failure: ApiFailureDetail) {
    super(describe(failure), 'ClusterNotFound');
  }
}

/**
 * A 404 that does not say "no such cluster": `HYPERFLEET-NTF-000` (the API's router found no route:
 * wrong base URL, path prefix or API version) or a 404 without the API's problem body (something
 * else answered: a proxy, another service). Transient on purpose: the event is redelivered, so
 * nothing is lost once the configuration is fixed, and an alert counts these (never a silent skip).
 */
export class HyperFleetEndpointError extends TransientError {
  constructor(readonly failure: ApiFailureDetail) {
    super(
      `${describe(failure)}. ${failure.url ?? failure.path} is not a HyperFleet API route: check HYPERFLEET_API_BASE_URL (scheme, host, port, no path) and HYPERFLEET_API_VERSION (e.g. v1) against the API's base path /api/hyperfleet/{version}.`,
      'HyperFleetApiEndpointNotFound',
    );
  }
}

/** 400, 405, 409, 422: the API refused the request; sending it again will not help. */
export class HyperFleetInvalidRequestError extends PermanentError {
  constructor(readonly failure: ApiFailureDetail) {
    super(
      `${describe(failure)}. The request was refused; see the detail above.`,
      'HyperFleetApiRejected',
    );
  }
}

/** What to configure for an authentication (401) or authorization (403) refusal. */
function authAdvice(failure: ApiFailureDetail): string {
  if (failure.status === 401)
    return 'The API requires a bearer token (JWT is on by default in the API): set HYPERFLEET_API_AUTH_TOKEN_PATH (a file holding the token) or HYPERFLEET_API_AUDIENCE (a Google ID token), and check that the token is valid for the API.';
  return 'The caller lacks rights or tenancy headers: a system component sends HYPERFLEET_API_SYSTEM_HEADER (default X-HyperFleet-System: true) and may only GET/list and PUT statuses; a tenant caller sets HYPERFLEET_API_ORG (sent as HYPERFLEET_API_ORG_HEADER). The header names must match the API tenancy configuration.';
}

/** 401, 403: the adapter's credentials or tenancy headers are missing, wrong or lack rights. */
export class HyperFleetUnauthorizedError extends PermanentError {
  constructor(readonly failure: ApiFailureDetail) {
    super(`${describe(failure)}. ${authAdvice(failure)}`, 'HyperFleetApiUnauthorized');
  }
}

/** 5xx, 408, 429, timeouts and network errors, after the client's retries. */
export class HyperFleetUnavailableError extends TransientError {
  constructor(readonly failure: ApiFailureDetail) {
    super(`${describe(failure)}. It was retried with backoff.`, 'HyperFleetApiUnavailable');
  }

  /** The delay a proxy asked for with Retry-After, if any. */
  get retryAfterMs(): number | undefined {
    return this.failure.retryAfterMs;
  }
}

/** Statuses worth retrying. */
export const isTransientStatus = (status: number | undefined) =>
  status === undefined || status === 408 || status === 429 || status >= 500;

/** The typed error for an answer (or its absence). */
export function errorForStatus(failure: ApiFailureDetail): Error {
  const status = failure.status;
  if (isTransientStatus(status)) return new HyperFleetUnavailableError(failure);
  if (status === 404)
    return failure.code && RESOURCE_NOT_FOUND_CODES.has(failure.code)
      ? new HyperFleetNotFoundError(failure)
      : new HyperFleetEndpointError(failure);
  if (status === 401 || status === 403) return new HyperFleetUnauthorizedError(failure);
  return new HyperFleetInvalidRequestError(failure);
}
