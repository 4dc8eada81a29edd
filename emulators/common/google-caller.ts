import { lookupGoogleToken, type GoogleTokenOwner } from './google-token-info';

/** Who is asking, as IAM members name it (`serviceAccount:EMAIL`, `user:EMAIL`). */
export interface Principal {
  readonly members: readonly string[];
}

/**
 * Who a request to a Google API emulator is: a principal for a bearer token Google would accept,
 * `invalid` for one it would not, `unauthenticated` without credentials (what each emulator makes
 * of that is its own: the Secret Manager emulator's own calls, a 401 elsewhere).
 */
export type Caller =
  | { readonly kind: 'unauthenticated' }
  | { readonly kind: 'principal'; readonly principal: Principal }
  | { readonly kind: 'invalid' };

/** The bearer token of an `Authorization` header, if it holds one. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
}

/**
 * The caller behind a bearer token, as Google knows it from token info: its email when the token
 * carries the userinfo.email scope, else the service account the configuration knows by its
 * numeric unique id (IAM knows the account whatever the token's scopes). An unknown or expired
 * token is `invalid` (UNAUTHENTICATED).
 */
export async function callerOf(
  authorization: string | undefined,
  tokenInfoUrl: string,
  /** The email of a service account known by its numeric unique id. */
  serviceAccountEmail: (uniqueId: string) => string | undefined,
): Promise<Caller> {
  const token = bearerToken(authorization);
  if (token === undefined) return { kind: 'unauthenticated' };
  const owner = await lookupGoogleToken(tokenInfoUrl, token);
  if (!owner) return { kind: 'invalid' };
  return { kind: 'principal', principal: principalOf(owner, serviceAccountEmail) };
}

/**
 * The IAM principal of a verified token's owner: its email when token info gave one, else the
 * service account IAM knows by the numeric unique id (none known: a principal no binding names).
 */
export function principalOf(
  owner: GoogleTokenOwner,
  serviceAccountEmail: (uniqueId: string) => string | undefined,
): Principal {
  const email = owner.email ?? serviceAccountEmail(owner.uniqueId);
  if (email === undefined) return { members: [] };
  const kind = email.endsWith('.gserviceaccount.com') ? 'serviceAccount' : 'user';
  return { members: [`${kind}:${email}`, 'allAuthenticatedUsers'] };
}

/** Google's answer to a request without credentials. */
export const MISSING_CREDENTIALS_MESSAGE =
  'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';

/** Google's answer to a request whose credentials it cannot verify. */
export const UNAUTHENTICATED_MESSAGE =
  'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';
