import { PermanentError, TransientError } from '../errors';

/** What the API said, for logs and messages. */
export interface ApiFailureDetail {
  readonly method: string;
  readonly path: string;
  readonly status?: number;
  readonly code?: string;
  readonly detail?: string;
}

function describe(failure: ApiFailureDetail): string {
  const status =
    failure.status === undefined
      ? 'no response'
      : `${failure.status}${failure.code ? ` ${failure.code}` : ''}`;
  return `HyperFleet API ${failure.method} ${failure.path} failed: ${status}${failure.detail ? `: ${failure.detail}` : ''}`;
}

/** 404: the cluster (or route) does not exist. */
export class HyperFleetNotFoundError extends PermanentError {
  constructor(readonly failure: ApiFailureDetail) {
    super(describe(failure), 'ClusterNotFound');
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

/** 401, 403: the adapter's credentials are missing, wrong or lack rights. */
export class HyperFleetUnauthorizedError extends PermanentError {
  constructor(readonly failure: ApiFailureDetail) {
    super(
      `${describe(failure)}. Check HYPERFLEET_API_AUTH_TOKEN_PATH or HYPERFLEET_API_AUDIENCE.`,
      'HyperFleetApiUnauthorized',
    );
  }
}

/** 5xx, 408, 429, timeouts and network errors, after the client's retries. */
export class HyperFleetUnavailableError extends TransientError {
  constructor(readonly failure: ApiFailureDetail) {
    super(`${describe(failure)}. It was retried with backoff.`, 'HyperFleetApiUnavailable');
  }
}

/** Statuses worth retrying. */
export const isTransientStatus = (status: number | undefined) =>
  status === undefined || status === 408 || status === 429 || status >= 500;

/** The typed error for an answer (or its absence). */
export function errorForStatus(failure: ApiFailureDetail): Error {
  const status = failure.status;
  if (isTransientStatus(status)) return new HyperFleetUnavailableError(failure);
  if (status === 404) return new HyperFleetNotFoundError(failure);
  if (status === 401 || status === 403) return new HyperFleetUnauthorizedError(failure);
  return new HyperFleetInvalidRequestError(failure);
}
