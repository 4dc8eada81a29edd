import * as grpc from '@grpc/grpc-js';
import { GrpcError } from '../common/grpc-error';

/** Page size when the request gives none (Cloud Run does not document its own default). */
export const DEFAULT_EXECUTIONS_PAGE_SIZE = 100;
/** Larger requests are capped, as Google APIs do. */
export const MAX_EXECUTIONS_PAGE_SIZE = 1000;

/** What a page token carries: the request it belongs to and where the previous page stopped. */
interface PageCursor {
  readonly parent: string;
  /** Only executions created before this sequence number remain. */
  readonly before: number;
}

/**
 * Pages a newest-first listing. Executions are identified by their creation sequence number, so
 * executions created while a client pages do not shift later pages (an offset would). A token
 * from another request ("All other parameters must match") is INVALID_ARGUMENT.
 */
export function pageOf<T extends { readonly sequence: number }>(
  items: readonly T[],
  request: { parent: string; pageSize?: number; pageToken?: string },
): { page: T[]; nextPageToken: string } {
  const size = Math.min(
    request.pageSize && request.pageSize > 0 ? request.pageSize : DEFAULT_EXECUTIONS_PAGE_SIZE,
    MAX_EXECUTIONS_PAGE_SIZE,
  );
  const cursor = request.pageToken ? decodeToken(request.pageToken, request.parent) : undefined;
  const remaining = [...items]
    .sort((a, b) => b.sequence - a.sequence)
    .filter((item) => cursor === undefined || item.sequence < cursor.before);
  const page = remaining.slice(0, size);
  const last = page[page.length - 1];
  const nextPageToken =
    remaining.length > size && last
      ? Buffer.from(
          JSON.stringify({ parent: request.parent, before: last.sequence } satisfies PageCursor),
        ).toString('base64url')
      : '';
  return { page, nextPageToken };
}

function decodeToken(token: string, parent: string): PageCursor {
  try {
    const cursor = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as PageCursor;
    if (cursor.parent === parent && Number.isInteger(cursor.before)) return cursor;
  } catch {
    // Falls through to the error below.
  }
  throw new GrpcError(
    grpc.status.INVALID_ARGUMENT,
    'Invalid page token: it does not belong to this request; list again without page_token.',
  );
}
