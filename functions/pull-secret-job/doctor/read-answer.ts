/** What a read of one Google resource gave the doctor. */
export type ReadAnswer<T> =
  | { readonly kind: 'found'; readonly value: T }
  | { readonly kind: 'missing' }
  /** The job's identity may not read it: what the doctor cannot see, it does not judge. */
  | { readonly kind: 'denied'; readonly message: string }
  | { readonly kind: 'failed'; readonly detail: string };

/** gRPC status codes the doctor tells apart (https://grpc.github.io/grpc/core/md_doc_statuscodes.html). */
export const GRPC = { NOT_FOUND: 5, PERMISSION_DENIED: 7, UNAUTHENTICATED: 16 } as const;

/** A failed Google client call as a ReadAnswer (NOT_FOUND, PERMISSION_DENIED, or anything else). */
export function answerOfGrpcError<T>(error: unknown): ReadAnswer<T> {
  const code = (error as { code?: unknown } | null)?.code;
  const details = (error as { details?: unknown } | null)?.details;
  const message =
    typeof details === 'string' && details !== ''
      ? details
      : error instanceof Error
        ? error.message
        : String(error);
  if (code === GRPC.NOT_FOUND) return { kind: 'missing' };
  if (code === GRPC.PERMISSION_DENIED) return { kind: 'denied', message };
  return {
    kind: 'failed',
    detail: `${typeof code === 'number' ? `code ${code}: ` : ''}${message}`,
  };
}
