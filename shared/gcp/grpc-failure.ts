import { GrpcStatus as status, grpcStatusName } from './grpc-status';
import { PermanentError, TransientError, type AdapterError } from '../errors';

/** Codes worth retrying: the service may answer differently in a moment. */
const TRANSIENT_CODES = new Set<number>([
  status.UNAVAILABLE,
  status.DEADLINE_EXCEEDED,
  status.INTERNAL,
  status.RESOURCE_EXHAUSTED,
  status.ABORTED,
]);

/** The numeric gRPC code of an error thrown by a Google client, if it has one. */
export function grpcCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** True for errors a retry may cure. */
export function isTransientGrpcError(error: unknown): boolean {
  const code = grpcCode(error);
  // No code at all means the call never got an answer (connection refused, reset): transient.
  return code === undefined ? !(error instanceof PermanentError) : TRANSIENT_CODES.has(code);
}

/** The gRPC detail text without the "N CODE:" prefix clients add. */
function detailOf(error: unknown): string {
  const details = (error as { details?: unknown } | null)?.details;
  if (typeof details === 'string' && details !== '') return details;
  return error instanceof Error ? error.message.replace(/^\d+ [A-Z_]+: /, '') : String(error);
}

/**
 * Turns a failed Google API call into an AdapterError with a reason code and a message saying
 * which call on which resource failed and what to do. `service` is e.g. "Secret Manager".
 */
export function toAdapterError(
  error: unknown,
  context: {
    service: string;
    operation: string;
    resource: string;
    identityHint?: string;
    /** What to do about PERMISSION_DENIED on this resource, when the caller knows better than "grant it". */
    permissionFix?: string;
  },
): AdapterError {
  const code = grpcCode(error);
  const codeName = code === undefined ? 'NO_RESPONSE' : (grpcStatusName(code) ?? String(code));
  const what = `${context.service} ${context.operation} on ${context.resource} failed: ${codeName}: ${detailOf(error)}`;
  switch (code) {
    case status.PERMISSION_DENIED:
      return new PermanentError(
        `${what}. ${context.permissionFix ?? `Grant ${context.identityHint ?? 'the caller'} the missing permission (see docs/deployment.md).`}`,
        'PermissionDenied',
        { cause: error },
      );
    case status.UNAUTHENTICATED:
      return new PermanentError(
        `${what}. Check the credentials (Application Default Credentials).`,
        'Unauthenticated',
        { cause: error },
      );
    case status.INVALID_ARGUMENT:
    case status.OUT_OF_RANGE:
      return new PermanentError(`${what}.`, 'InvalidArgument', { cause: error });
    case status.FAILED_PRECONDITION:
      return new PermanentError(`${what}.`, 'FailedPrecondition', { cause: error });
    case status.NOT_FOUND:
      return new PermanentError(`${what}.`, 'NotFound', { cause: error });
    case status.RESOURCE_EXHAUSTED:
      return new TransientError(
        `${what}. The quota is exhausted; it is tried again later, with backoff.`,
        'QuotaExceeded',
        { cause: error },
      );
    default:
      return new TransientError(
        `${what}. It was retried with backoff; try again later.`,
        `${context.service.replace(/\s+/g, '')}Unavailable`,
        { cause: error },
      );
  }
}
