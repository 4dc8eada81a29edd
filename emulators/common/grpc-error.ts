import { status, type ServiceError } from '@grpc/grpc-js';

/** Names of gRPC status codes as the service documentation spells them. */
export type GrpcCodeName = keyof typeof status;

/** An error an emulator answers with: a gRPC status code and the service's style of message. */
export class GrpcError extends Error {
  constructor(
    readonly code: status,
    message: string,
  ) {
    super(message);
    this.name = 'GrpcError';
  }

  /** The shape grpc-js expects in a unary callback. */
  toServiceError(): Partial<ServiceError> {
    return { code: this.code, details: this.message, message: this.message };
  }
}

/** Parses a code given as a name (`UNAVAILABLE`) or number (`14`). */
export function parseGrpcCode(value: string | number): status {
  if (typeof value === 'number' || /^\d+$/.test(value)) {
    const code = Number(value);
    if (status[code] !== undefined) return code as status;
  } else {
    const code = status[value.toUpperCase() as GrpcCodeName];
    if (typeof code === 'number') return code;
  }
  throw new Error(`unknown gRPC status code ${JSON.stringify(value)}`);
}
