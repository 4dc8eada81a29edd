import * as z from 'zod';

/**
 * The token-info answer of Google's OAuth2 endpoint (https://oauth2.googleapis.com/tokeninfo; the
 * local metadata server answers the same shape): for a service account's token `azp` (and `aud`)
 * is the account's numeric unique id, `sub` the same but only with an identity scope; `email` is
 * present only when the token carries the `userinfo.email` (or `email`) scope.
 */
const tokenInfoSchema = z.object({
  azp: z.string().min(1).optional(),
  sub: z.string().min(1).optional(),
  email: z.string().optional(),
  email_verified: z.union([z.string(), z.boolean()]).optional(),
  exp: z.coerce.number().optional(),
  scope: z.string().optional(),
});

/** Who a Google access token belongs to, as Google's token info tells it. */
export interface GoogleTokenOwner {
  /** The account's numeric unique id. */
  readonly uniqueId: string;
  /** Present only when the token was granted the userinfo.email scope. */
  readonly email?: string;
  readonly scopes: readonly string[];
}

/**
 * Asks the token-info endpoint about `token`; undefined for an unknown, expired or unreadable
 * token, and when the endpoint cannot be reached (a verifier fails closed).
 */
export async function lookupGoogleToken(
  tokenInfoUrl: string,
  token: string,
): Promise<GoogleTokenOwner | undefined> {
  let answer: Response;
  try {
    const url = new URL(tokenInfoUrl);
    url.searchParams.set('access_token', token);
    answer = await fetch(url, { signal: AbortSignal.timeout(5000) });
  } catch {
    return undefined;
  }
  if (answer.status !== 200) return undefined;
  const info = tokenInfoSchema.safeParse(await answer.json().catch(() => undefined));
  if (!info.success) return undefined;
  if (info.data.exp !== undefined && info.data.exp * 1000 <= Date.now()) return undefined;
  const uniqueId = info.data.sub ?? info.data.azp;
  if (uniqueId === undefined) return undefined;
  const verified = info.data.email_verified === true || info.data.email_verified === 'true';
  return {
    uniqueId,
    ...(info.data.email && verified ? { email: info.data.email } : {}),
    scopes: (info.data.scope ?? '').split(/\s+/).filter(Boolean),
  };
}
