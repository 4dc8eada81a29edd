import type { IncomingMessage } from 'node:http';
import { readBody } from '../common/http';
import { errorPage, escapeHtml, tokenInfoBody, tokenInfoError, type Answer } from './rules';
import type { TokenBook } from './token-book';

/** A token-info request carries one token, in the query, a form body or a bearer header. */
async function tokenOf(
  req: IncomingMessage,
  url: URL,
): Promise<{ accessToken?: string; idToken?: string }> {
  const fromQuery = url.searchParams;
  let form = new URLSearchParams();
  if (req.method === 'POST') form = new URLSearchParams(await readBody(req, 64 * 1024));
  const pick = (name: string) => fromQuery.get(name) || form.get(name) || undefined;
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const accessToken = pick('access_token') ?? bearer;
  const idToken = pick('id_token');
  return { ...(accessToken ? { accessToken } : {}), ...(idToken ? { idToken } : {}) };
}

/**
 * Google's token info (rules.ts [I]) for the tokens this server issued: GET or POST, the token
 * as `access_token` (query or form) or as `Authorization: Bearer` (google-auth-library's
 * getTokenInfo). It stands for oauth2.googleapis.com, so it is not gated by Metadata-Flavor; a
 * Kubernetes emulator asks it who a bearer token is, as GKE asks Google. ID tokens are not
 * issued here, so every `id_token` is "Invalid Value".
 */
export async function serveTokenInfo(
  req: IncomingMessage,
  url: URL,
  tokens: TokenBook,
  now: () => number,
): Promise<Answer> {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'POST') {
    const page = errorPage(
      405,
      `The request method <code>${escapeHtml(method)}</code> is inappropriate for the URL <code>${url.pathname}</code>.`,
    );
    return { ...page, headers: { Allow: 'GET, POST' } };
  }
  const { accessToken, idToken } = await tokenOf(req, url);
  if (!accessToken && !idToken) return tokenInfoError('missing');
  const grant = accessToken ? tokens.lookup(accessToken) : undefined;
  if (!grant) return tokenInfoError('invalid');
  return {
    status: 200,
    contentType: 'application/json; charset=UTF-8',
    body: JSON.stringify(tokenInfoBody(grant, now())),
  };
}
