import type { CallStatuses } from '../logging/api-call-log';
import { grpcCode } from './grpc-failure';
import { GrpcStatus as status, grpcStatusName } from './grpc-status';

/**
 * The HTTP status each gRPC code stands for, as google.rpc.Code documents it ("HTTP Mapping" on
 * every code of https://github.com/googleapis/googleapis/blob/master/google/rpc/code.proto). Our
 * API-call log entries carry it as `status_code`, so one label means the same for Secret Manager
 * (gRPC) and the Kubernetes API (HTTP), and the seed's alert on `status_code=~"5.."` reads both:
 * UNKNOWN, INTERNAL and DATA_LOSS are 500, UNIMPLEMENTED 501, UNAVAILABLE 503, DEADLINE_EXCEEDED
 * 504. The gRPC name itself is logged too (`grpc_code`): several codes share one HTTP status.
 */
const HTTP_STATUS = new Map<number, number>([
  [status.OK, 200],
  [status.CANCELLED, 499],
  [status.UNKNOWN, 500],
  [status.INVALID_ARGUMENT, 400],
  [status.DEADLINE_EXCEEDED, 504],
  [status.NOT_FOUND, 404],
  [status.ALREADY_EXISTS, 409],
  [status.PERMISSION_DENIED, 403],
  [status.UNAUTHENTICATED, 401],
  [status.RESOURCE_EXHAUSTED, 429],
  [status.FAILED_PRECONDITION, 400],
  [status.ABORTED, 409],
  [status.OUT_OF_RANGE, 400],
  [status.UNIMPLEMENTED, 501],
  [status.INTERNAL, 500],
  [status.UNAVAILABLE, 503],
  [status.DATA_LOSS, 500],
]);

/** The HTTP status google.rpc.Code maps `code` to; 500 for a code outside the protocol (as UNKNOWN). */
export function grpcHttpStatus(code: number): number {
  return HTTP_STATUS.get(code) ?? 500;
}

/** A Google client's answers as API-call entries state them (shared/logging/api-call-log.ts). */
export const GRPC_CALL_STATUSES: CallStatuses = {
  answered: { status_code: '200', grpc_code: 'OK' },
  failed: (error) => {
    const code = grpcCode(error);
    if (code === undefined) return { status_code: 'no_response' };
    return {
      status_code: String(grpcHttpStatus(code)),
      grpc_code: grpcStatusName(code) ?? String(code),
    };
  },
};
