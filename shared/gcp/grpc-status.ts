/**
 * The gRPC status codes (https://grpc.github.io/grpc/core/md_doc_statuscodes.html), fixed by the
 * protocol. Our code compares errors against these; importing them from @grpc/grpc-js instead would
 * make every module that classifies an error load the gRPC runtime at start, when most function
 * events never make a gRPC call (the bundles load it with the first Google client).
 */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

const NAMES = new Map<number, string>(
  Object.entries(GrpcStatus).map(([name, code]) => [code, name]),
);

/** The code's name (`NOT_FOUND`), as grpc-js's `status[code]` gives it; undefined if unknown. */
export function grpcStatusName(code: number): string | undefined {
  return NAMES.get(code);
}
