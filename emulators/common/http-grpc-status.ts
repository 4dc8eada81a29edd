import { status } from '@grpc/grpc-js';

// Google's mapping between gRPC codes and HTTP statuses, as google/rpc/code.proto states it for
// each code ("HTTP Mapping: ...", the proto shipped in google-gax) and
// https://cloud.google.com/apis/design/errors#handling_errors tabulates it. Google's REST front
// ends answer a gRPC error with the HTTP status of its code; Cloud Tasks records a worker's HTTP
// answer as the google.rpc.Status of that status (Task.last_attempt.response_status).

/** The HTTP status Google's REST surface answers for a gRPC code. */
const HTTP_OF_CODE: Readonly<Record<number, number>> = {
  [status.OK]: 200,
  [status.CANCELLED]: 499,
  [status.UNKNOWN]: 500,
  [status.INVALID_ARGUMENT]: 400,
  [status.DEADLINE_EXCEEDED]: 504,
  [status.NOT_FOUND]: 404,
  [status.ALREADY_EXISTS]: 409,
  [status.PERMISSION_DENIED]: 403,
  [status.UNAUTHENTICATED]: 401,
  [status.RESOURCE_EXHAUSTED]: 429,
  [status.FAILED_PRECONDITION]: 400,
  [status.ABORTED]: 409,
  [status.OUT_OF_RANGE]: 400,
  [status.UNIMPLEMENTED]: 501,
  [status.INTERNAL]: 500,
  [status.UNAVAILABLE]: 503,
  [status.DATA_LOSS]: 500,
};

/**
 * The reverse, where one HTTP status stands for several codes: the code the mapping table lists
 * first for it (400 INVALID_ARGUMENT, 409 ABORTED would be ALREADY_EXISTS's too, 500 INTERNAL).
 */
const CODE_OF_HTTP: Readonly<Record<number, status>> = {
  200: status.OK,
  400: status.INVALID_ARGUMENT,
  401: status.UNAUTHENTICATED,
  403: status.PERMISSION_DENIED,
  404: status.NOT_FOUND,
  409: status.ABORTED,
  429: status.RESOURCE_EXHAUSTED,
  499: status.CANCELLED,
  500: status.INTERNAL,
  501: status.UNIMPLEMENTED,
  503: status.UNAVAILABLE,
  504: status.DEADLINE_EXCEEDED,
};

/** The HTTP status of a gRPC code on Google's REST surface. */
export function httpStatusOfCode(code: status): number {
  return HTTP_OF_CODE[code] ?? 500;
}

/**
 * The gRPC code of an HTTP status: the table's entry, else by class as the design guide's table
 * groups them (2xx OK, other 4xx FAILED_PRECONDITION, other 5xx INTERNAL, anything else UNKNOWN).
 */
export function codeOfHttpStatus(httpStatus: number): status {
  const mapped = CODE_OF_HTTP[httpStatus];
  if (mapped !== undefined) return mapped;
  if (httpStatus >= 200 && httpStatus < 300) return status.OK;
  if (httpStatus >= 400 && httpStatus < 500) return status.FAILED_PRECONDITION;
  if (httpStatus >= 500 && httpStatus < 600) return status.INTERNAL;
  return status.UNKNOWN;
}

/**
 * Google's JSON error body (https://cloud.google.com/apis/design/errors#http_mapping):
 * `{"error": {"code": HTTP status, "message", "status": "CODE_NAME"}}`.
 */
export function googleJsonError(
  code: status,
  message: string,
): { error: { code: number; message: string; status: string } } {
  return { error: { code: httpStatusOfCode(code), message, status: status[code] } };
}
