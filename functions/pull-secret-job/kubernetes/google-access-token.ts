import type { GoogleAuth } from 'google-auth-library';
import { KUBERNETES_TOKEN_SCOPES } from './kubernetes-access';

/**
 * The job's Google access token for GKE / Connect Gateway, cached and refreshed by
 * google-auth-library. Both scopes matter: GKE names the caller by its email only when the token
 * carries userinfo.email (otherwise by the account's numeric unique id, which no RBAC subject
 * names), as gke-gcloud-auth-plugin asks for them (kubernetes/cloud-provider-gcp,
 * cmd/gke-gcloud-auth-plugin/default_credentials_token_provider.go).
 */
export async function googleAccessToken(): Promise<string> {
  const { GoogleAuth } = await import('../../../shared/gcp/lazy/google-auth.js');
  authClient ??= new GoogleAuth({ scopes: [...KUBERNETES_TOKEN_SCOPES] });
  const token = await authClient.getAccessToken();
  if (!token) throw new Error('Application Default Credentials returned no access token');
  return token;
}
let authClient: GoogleAuth | undefined;
