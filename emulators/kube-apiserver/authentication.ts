import { lookupGoogleToken, type GoogleTokenOwner } from '../common/google-token-info';

/** Who a request is, as the API server's authenticators hand it to authorization and admission. */
export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  /**
   * The Google account behind a Google access token (set by that authenticator only): GKE sends
   * these identities, and no others (static tokens, client certificates, impersonated users),
   * through IAM (gke-iam.ts).
   */
  readonly google?: GoogleTokenOwner;
}

/** Every authenticated user is in this group (the real server adds it to every authenticated user). */
export const AUTHENTICATED = 'system:authenticated';

/** A static bearer token's user, as a `--token-auth-file` line gives it: user and groups. */
export interface StaticTokenUser {
  readonly user: string;
  readonly groups?: readonly string[];
}

/**
 * Bearer-token authentication: static tokens (the admin's and other kubeconfig users') first,
 * then, when a token-info URL is configured, Google access tokens as GKE authenticates them.
 *
 * GKE resolves a Google access token to the account's email only when the token was issued with
 * the `userinfo.email` scope; without it the user is the account's numeric unique id, so RBAC
 * subjects that name the service account's email do not match (which is why gke-gcloud-auth-plugin
 * asks for both cloud-platform and userinfo.email: kubernetes/cloud-provider-gcp,
 * cmd/gke-gcloud-auth-plugin/default_credentials_token_provider.go). Unknown or expired tokens are
 * 401, as are tokens the token-info endpoint cannot be asked about (the real webhook authenticator
 * fails closed too).
 */
export class Authenticator {
  private readonly staticTokens = new Map<string, UserInfo>();

  constructor(private readonly googleTokenInfoUrl?: string) {}

  /** Adds (or replaces) a static token. */
  addStaticToken(token: string, user: StaticTokenUser): void {
    this.staticTokens.set(token, {
      username: user.user,
      groups: [...new Set([...(user.groups ?? []), AUTHENTICATED])],
    });
  }

  /** The user a bearer token stands for, or undefined (answer 401). */
  async authenticate(token: string | undefined): Promise<UserInfo | undefined> {
    if (token === undefined || token === '') return undefined;
    const known = this.staticTokens.get(token);
    if (known) return known;
    if (!this.googleTokenInfoUrl) return undefined;
    return googleUser(this.googleTokenInfoUrl, token);
  }
}

async function googleUser(tokenInfoUrl: string, token: string): Promise<UserInfo | undefined> {
  const owner = await lookupGoogleToken(tokenInfoUrl, token);
  if (!owner) return undefined;
  return {
    username: owner.email ?? owner.uniqueId,
    uid: owner.uniqueId,
    groups: [AUTHENTICATED],
    google: owner,
  };
}
