import * as z from 'zod';
import { formatIssuePath } from '../../../shared/zod-issue';
import type { KubernetesAccess } from '../kubernetes/kubernetes-access';

/** A management cluster's name: a DNS label, as the placement adapter reports it. */
export const MANAGEMENT_CLUSTER_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export const managementClusterName = z
  .string()
  .regex(
    MANAGEMENT_CLUSTER_NAME,
    'must be a management cluster name: a DNS label of at most 63 lowercase letters, digits or hyphens (e.g. us-central1-mgmt-1)',
  );

/** The management cluster's CA: PEM, or base64 of PEM as GKE's `masterAuth.clusterCaCertificate` gives it. */
export const pemCertificate = z.string().transform((text, ctx) => {
  const pem = text.startsWith('-----BEGIN') ? text : Buffer.from(text, 'base64').toString('utf8');
  if (!pem.startsWith('-----BEGIN CERTIFICATE-----')) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be a PEM certificate, or base64 of one (as GKE gives it)',
    });
    return z.NEVER;
  }
  return pem;
});

/** The management cluster's API URL: a GKE endpoint or a Connect Gateway membership URL. */
export const managementEndpoint = z.url({
  protocol: /^https$/,
  message:
    'must be an https:// URL of the management cluster API (GKE endpoint or Connect Gateway)',
});

/** GKE's DNS-based control plane endpoint: gke-HASH.REGION.gke.goog (any *.gke.goog host). */
const GKE_DNS_ENDPOINT_HOST = /\.gke\.goog$/;
/** Connect Gateway, global or regional (REGION-connectgateway.googleapis.com). */
const CONNECT_GATEWAY_HOST = /^([a-z0-9-]+-)?connectgateway\.googleapis\.com$/;
/** A GKE membership on the gateway; the project is the fleet host project's NUMBER. */
const CONNECT_GATEWAY_PATH =
  /^\/v1\/projects\/[0-9]+\/locations\/[a-z0-9-]+\/gkeMemberships\/[a-z0-9]([a-z0-9-]*[a-z0-9])?\/?$/;
/** The same path naming the project some other way (by its id). */
const CONNECT_GATEWAY_PATH_ANY_PROJECT =
  /^\/v1\/projects\/[^/]+\/locations\/[a-z0-9-]+\/gkeMemberships\/[a-z0-9]([a-z0-9-]*[a-z0-9])?\/?$/;
const GATEWAY_FORM =
  'https://[REGION-]connectgateway.googleapis.com/v1/projects/PROJECT_NUMBER/locations/LOCATION/gkeMemberships/MEMBERSHIP';

/**
 * Whether an endpoint is Connect Gateway's (global or regional host): its calls count against the
 * fleet's gateway quota, so a batch task paces them (batch/connect-gateway-pacing.ts).
 */
export function isConnectGatewayEndpoint(endpoint: string): boolean {
  try {
    return CONNECT_GATEWAY_HOST.test(new URL(endpoint).hostname.toLowerCase());
  } catch {
    return false;
  }
}

/** What is wrong with a Google-access endpoint, and in which of the entry's fields. */
export interface EndpointProblem {
  readonly field: 'endpoint' | 'caCert';
  /** What was wrong and what to do; names no value. */
  readonly message: string;
}

/**
 * The rules an https endpoint (already a valid URL) must meet beyond its syntax, for the three ways
 * the job reaches a cluster with its Google access token (docs/management-clusters.md):
 * - GKE's DNS-based endpoint (*.gke.goog) and Connect Gateway serve publicly trusted certificates.
 *   Given a CA, Node trusts only that CA for the connection, so the handshake would fail: no CA.
 * - Connect Gateway: only GKE memberships, with the fleet host project's number, the form Google's
 *   documentation and `gcloud container fleet memberships get-credentials` use.
 * Any other host (GKE's IP endpoint, a proxy) is taken as it is, with or without a CA.
 * `caName` is how the CA is named to the reader (`"caCert"`, `MANAGEMENT_CLUSTER_CA_CERT`).
 */
export function googleEndpointProblem(
  endpoint: string,
  hasCaCert: boolean,
  caName: string,
): EndpointProblem | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return undefined; // not a URL: the endpoint's own schema says so
  }
  const host = url.hostname.toLowerCase();
  const publiclyTrusted = (what: string): EndpointProblem => ({
    field: 'caCert',
    message: `the endpoint is ${what}, which serves a publicly trusted certificate; with ${caName} the job would trust only that CA and TLS would fail: drop ${caName}`,
  });
  if (GKE_DNS_ENDPOINT_HOST.test(host)) {
    return hasCaCert
      ? publiclyTrusted("a GKE cluster's DNS-based endpoint (*.gke.goog)")
      : undefined;
  }
  if (!CONNECT_GATEWAY_HOST.test(host)) return undefined;
  const membershipPath = CONNECT_GATEWAY_PATH.test(url.pathname);
  if (!membershipPath || url.search !== '' || url.hash !== '') {
    const byId = !membershipPath && CONNECT_GATEWAY_PATH_ANY_PROJECT.test(url.pathname);
    return {
      field: 'endpoint',
      message: byId
        ? `is a Connect Gateway URL naming the fleet host project by its id; name it by its number (gcloud projects describe PROJECT_ID --format='value(projectNumber)'): ${GATEWAY_FORM}`
        : `is a Connect Gateway URL but not a GKE membership's: it must be ${GATEWAY_FORM} (only GKE clusters registered to the fleet are supported; no query or fragment)`,
    };
  }
  return hasCaCert ? publiclyTrusted('Connect Gateway') : undefined;
}

/** GKE (with its CA) or Connect Gateway (public CA): the job's Google access token. */
const endpointEntry = z.strictObject({
  endpoint: managementEndpoint,
  caCert: pemCertificate.optional(),
});

/** A kubeconfig file and optionally one of its contexts: local emulators, any other cluster. */
const kubeconfigEntry = z.strictObject({
  kubeconfig: z.string().min(1, 'must be the path of a kubeconfig file'),
  context: z.string().min(1, 'must name a context of the kubeconfig').optional(),
});

const FORMS =
  'each entry is {"endpoint": "https://IP", "caCert": "PEM or base64"} (GKE IP endpoint), {"endpoint": "https://gke-....gke.goog"} (GKE DNS-based endpoint), {"endpoint": "https://connectgateway.googleapis.com/v1/projects/PROJECT_NUMBER/locations/LOCATION/gkeMemberships/MEMBERSHIP"} (Connect Gateway) or {"kubeconfig": "/path", "context": "optional"}';

/** Management clusters by name. */
export type ManagementClusterSet = Readonly<Record<string, KubernetesAccess>>;

/** The list parsed, or every problem found in it (each naming its entry and field, never a value). */
export type ManagementClustersParse =
  | { readonly ok: true; readonly clusters: ManagementClusterSet }
  | { readonly ok: false; readonly problems: readonly string[] };

/**
 * The list's JSON (MANAGEMENT_CLUSTERS, or the file MANAGEMENT_CLUSTERS_FILE names): an object,
 * name -> one of the three forms above. One pass over the entries, so 1,000 entries with their
 * CAs parse in milliseconds (docs/management-clusters.md, "Sizing").
 */
export function parseManagementClusters(text: string): ManagementClustersParse {
  const fail = (message: string): ManagementClustersParse => ({ ok: false, problems: [message] });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return fail(
      `is not valid JSON; it must be an object of management clusters by name (${FORMS})`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return fail(`must be a JSON object of management clusters by name (${FORMS})`);
  const entries = Object.entries(parsed);
  if (entries.length === 0) return fail('must name at least one management cluster');
  const clusters: Record<string, KubernetesAccess> = {};
  const problems: string[] = [];
  const problem = (message: string) => problems.push(message);
  for (const [name, entry] of entries) {
    const where = `entry ${JSON.stringify(name.slice(0, 80))}`;
    if (!MANAGEMENT_CLUSTER_NAME.test(name)) {
      problem(
        `${where}: the name must be a DNS label of at most 63 lowercase letters, digits or hyphens`,
      );
      continue;
    }
    const access = entryAccess(entry, where, problem);
    if (access) clusters[name] = access;
  }
  return problems.length === 0 ? { ok: true, clusters } : { ok: false, problems };
}

/**
 * `MANAGEMENT_CLUSTERS`: the list inline. Every problem is reported with the entry and the field
 * it is in; values are never echoed.
 */
export const managementClustersJson = z.string().transform((text, ctx): ManagementClusterSet => {
  const result = parseManagementClusters(text);
  if (result.ok) return result.clusters;
  for (const message of result.problems) ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
});

function entryAccess(
  entry: unknown,
  where: string,
  problem: (message: string) => void,
): KubernetesAccess | undefined {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    problem(`${where}: must be an object (${FORMS})`);
    return undefined;
  }
  const hasKubeconfig = 'kubeconfig' in entry;
  const hasEndpoint = 'endpoint' in entry;
  if (hasKubeconfig && hasEndpoint) {
    problem(`${where}: has both "kubeconfig" and "endpoint"; use one form`);
    return undefined;
  }
  if (!hasKubeconfig && !hasEndpoint) {
    problem(`${where}: needs "endpoint" (GKE or Connect Gateway) or "kubeconfig"`);
    return undefined;
  }
  if (hasKubeconfig) {
    const result = kubeconfigEntry.safeParse(entry);
    if (!result.success) return reportIssues(result.error, where, problem);
    return {
      kind: 'kubeconfig',
      path: result.data.kubeconfig,
      ...(result.data.context ? { context: result.data.context } : {}),
    };
  }
  const result = endpointEntry.safeParse(entry);
  if (!result.success) return reportIssues(result.error, where, problem);
  const wrong = googleEndpointProblem(
    result.data.endpoint,
    result.data.caCert !== undefined,
    '"caCert"',
  );
  if (wrong) {
    problem(
      wrong.field === 'endpoint'
        ? `${where}, field "endpoint": ${wrong.message}`
        : `${where}: ${wrong.message} from the entry`,
    );
    return undefined;
  }
  return {
    kind: 'google',
    endpoint: result.data.endpoint,
    ...(result.data.caCert ? { caPem: result.data.caCert } : {}),
  };
}

function reportIssues(
  error: z.ZodError,
  where: string,
  problem: (message: string) => void,
): undefined {
  for (const issue of error.issues) {
    const field = formatIssuePath(issue.path);
    problem(`${where}${field ? `, field "${field}"` : ''}: ${issue.message}`);
  }
  return undefined;
}
