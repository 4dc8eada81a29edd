import fs from 'node:fs';
import type * as k8s from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import { ConfigError } from '../../../shared/errors';
import { keepAliveAuthentication } from './kubernetes-agent';
import { loadKubernetesClient, type KubernetesClient } from './kubernetes-client';

/** How the job reaches the management cluster. */
export type KubernetesAccess =
  /** A kubeconfig file (its current context, or `context`): any cluster; the local emulators. */
  | { readonly kind: 'kubeconfig'; readonly path: string; readonly context?: string }
  /** GKE (with its CA) or Connect Gateway (public CA), with the job's Google access token. */
  | { readonly kind: 'google'; readonly endpoint: string; readonly caPem?: string };

/**
 * The OAuth scopes of the job's Google access token for management clusters: cloud-platform for
 * the API (and Connect Gateway), userinfo.email so that GKE and the gateway know the caller by its
 * email, the name the RBAC bindings and the fence use.
 */
export const KUBERNETES_TOKEN_SCOPES = [
  'https://www.googleapis.com/auth/cloud-platform',
  'https://www.googleapis.com/auth/userinfo.email',
] as const;

/** Supplies a current Google access token (google-auth-library caches and refreshes it). */
export type AccessTokenSource = () => Promise<string>;

const GOOGLE_AUTH_PROVIDER = 'hyperfleet-google-access-token';

/**
 * Builds a CoreV1Api client. The client library is loaded here, lazily: runs that skip the
 * Kubernetes phase never pay for it. With Google access, a custom authenticator asks for the token
 * on every request, so a token refreshed by google-auth-library is always the one sent.
 */
export async function createCoreV1Api(
  access: KubernetesAccess,
  tokenSource?: AccessTokenSource,
  /** Where the access was configured, for error messages (e.g. `MANAGEMENT_CLUSTERS entry "mgmt-1"`). */
  source = 'KUBECONFIG',
): Promise<{ api: k8s.CoreV1Api; identity: string }> {
  const { core, identity } = await createKubernetesApis(access, tokenSource, source);
  return { api: core, identity };
}

/**
 * The clients of one management cluster, as the job reaches it: Secrets (CoreV1Api) and
 * SelfSubjectAccessReview (AuthorizationV1Api, for `pull-secret doctor`), over one configuration.
 */
export async function createKubernetesApis(
  access: KubernetesAccess,
  tokenSource?: AccessTokenSource,
  source = 'KUBECONFIG',
): Promise<{ core: k8s.CoreV1Api; authorization: k8s.AuthorizationV1Api; identity: string }> {
  const client = await loadKubernetesClient();
  const config = new client.KubeConfig();
  if (access.kind === 'kubeconfig') {
    if (!fs.existsSync(access.path)) {
      throw new ConfigError(
        `Invalid pull secret job configuration: ${source}: file ${access.path} does not exist.`,
      );
    }
    config.loadFromFile(access.path);
    if (access.context !== undefined) {
      if (!config.getContextObject(access.context)) {
        const known = config.getContexts().map((context) => context.name);
        throw new ConfigError(
          `Invalid pull secret job configuration: ${source}: kubeconfig ${access.path} has no context "${access.context}" (it has ${known.length > 0 ? known.join(', ') : 'none'}).`,
        );
      }
      config.setCurrentContext(access.context);
    }
    return {
      ...apisOf(client, config, source),
      identity: `kubeconfig user "${config.getCurrentUser()?.name ?? 'unknown'}"`,
    };
  }
  if (!tokenSource)
    throw new Error('Google access to the management cluster needs an access token source');
  config.addAuthenticator({
    isAuthProvider: (user) => user.authProvider?.name === GOOGLE_AUTH_PROVIDER,
    applyAuthentication: async (_user, options) => {
      options.headers = {
        ...(options.headers ?? {}),
        Authorization: `Bearer ${await tokenSource()}`,
      };
    },
  });
  config.loadFromOptions({
    clusters: [
      {
        name: 'management',
        server: access.endpoint,
        skipTLSVerify: false,
        ...(access.caPem ? { caData: Buffer.from(access.caPem).toString('base64') } : {}),
      },
    ],
    users: [{ name: 'job', authProvider: { name: GOOGLE_AUTH_PROVIDER, config: {} } }],
    contexts: [{ name: 'management', cluster: 'management', user: 'job' }],
    currentContext: 'management',
  });
  return {
    ...apisOf(client, config, source),
    identity: "the job's Google service account",
  };
}

/** KubeConfig.makeApiClient, with one keep-alive connection for all requests (kubernetes-agent.ts). */
function apisOf(
  client: KubernetesClient,
  config: k8s.KubeConfig,
  source: string,
): { core: k8s.CoreV1Api; authorization: k8s.AuthorizationV1Api } {
  const cluster = config.getCurrentCluster();
  if (!cluster)
    throw new ConfigError(
      `Invalid pull secret job configuration: ${source}: the kubeconfig's current context names no cluster; make current-context (or the chosen context) name one of its clusters.`,
    );
  const configuration = client.createConfiguration({
    baseServer: new client.ServerConfiguration(cluster.server, {}),
    authMethods: { default: keepAliveAuthentication(config) },
  });
  return {
    core: new client.CoreV1Api(configuration),
    authorization: new client.AuthorizationV1Api(configuration),
  };
}
