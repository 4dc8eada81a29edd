import type { IncomingHttpHeaders } from 'node:http';
import type * as z from 'zod';
import { listing, recursiveJson, resolve, type MetadataNode } from './metadata-tree';
import {
  badQuery,
  checkRequest,
  directoryQuerySchema,
  notFound,
  tokenQuerySchema,
  type Answer,
} from './rules';
import type { TokenBook } from './token-book';

/** What answering a metadata request needs. */
export interface MetadataContext {
  readonly tree: MetadataNode;
  readonly tokens: TokenBook;
  readonly defaultScopes: readonly string[];
}

const text = (body: string): Answer => ({ status: 200, contentType: 'application/text', body });
const json = (body: unknown): Answer => ({
  status: 200,
  contentType: 'application/json',
  body: JSON.stringify(body),
});

/** Parses a query with `schema`; a bad one is a 400 naming the parameter. */
function parseQuery<S extends z.ZodType>(
  schema: S,
  url: URL,
): { ok: true; value: z.output<S> } | { ok: false; answer: Answer } {
  const parsed = schema.safeParse(Object.fromEntries(url.searchParams));
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, answer: badQuery(`Invalid query parameter: ${issue?.message ?? 'unknown'}`) };
}

/**
 * Answers one request under /computeMetadata/v1 as rules.ts says: the security checks first,
 * then the path: a directory asked for without its trailing slash is redirected (301, as the
 * real server does for gcp-metadata's `GET /computeMetadata/v1/instance` ping), a directory is a
 * listing or (`?recursive=true`) JSON, a value is text, a token endpoint issues a token.
 */
export function serveMetadata(
  method: string,
  url: URL,
  headers: IncomingHttpHeaders,
  context: MetadataContext,
): Answer {
  const refused = checkRequest(method, url.pathname, headers);
  if (refused) return refused;
  const found = resolve(context.tree, url.pathname);
  if (!found) return notFound(url.pathname);
  const { node, asDirectory } = found;
  if (node.kind === 'directory') {
    if (!asDirectory)
      return {
        status: 301,
        contentType: 'text/html',
        body: `${url.pathname}/\n`,
        headers: { Location: `${url.pathname}/${url.search}` },
      };
    const query = parseQuery(directoryQuerySchema, url);
    if (!query.ok) return query.answer;
    return query.value.recursive ? json(recursiveJson(node)) : text(listing(node));
  }
  if (asDirectory) return notFound(url.pathname);
  if (node.kind === 'value') return text(node.text);
  const query = parseQuery(tokenQuerySchema, url);
  if (!query.ok) return query.answer;
  const scopes = query.value.scopes.length > 0 ? query.value.scopes : context.defaultScopes;
  const { token, expiresIn } = context.tokens.issue(node.account, scopes);
  return json({ access_token: token, expires_in: expiresIn, token_type: 'Bearer' });
}
