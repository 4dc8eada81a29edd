import { lookupGoogleToken } from '../../common/google-token-info';
import type { IamModel, Principal } from './iam-model';

/**
 * Who a request is. Calls without credentials are the emulator's own, as every Google emulator
 * takes them (client libraries in emulator mode send none): they hold every permission. A call with
 * a bearer token is a principal, checked against the allow policies as Google checks it.
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
  model: IamModel,
): Promise<Caller> {
  const token = bearerToken(authorization);
  if (token === undefined) return { kind: 'unauthenticated' };
  const owner = await lookupGoogleToken(tokenInfoUrl, token);
  if (!owner) return { kind: 'invalid' };
  const email = owner.email ?? model.serviceAccountEmail(owner.uniqueId);
  if (email === undefined) return { kind: 'principal', principal: { members: [] } };
  const kind = email.endsWith('.gserviceaccount.com') ? 'serviceAccount' : 'user';
  return {
    kind: 'principal',
    principal: { members: [`${kind}:${email}`, 'allAuthenticatedUsers'] },
  };
}

/** Google's answer to a request whose credentials it cannot verify. */
export const UNAUTHENTICATED_MESSAGE =
  'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';
