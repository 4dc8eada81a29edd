import * as z from 'zod';
import { formatIssuePath } from '../../shared/zod-issue';
import type { KubernetesAccess } from './kubernetes-access';

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
  'each entry is {"endpoint": "https://...", "caCert": "PEM or base64"} (GKE), {"endpoint": "https://connectgateway.googleapis.com/..."} (Connect Gateway) or {"kubeconfig": "/path", "context": "optional"}';

/** Management clusters by name. */
export type ManagementClusterSet = Readonly<Record<string, KubernetesAccess>>;

/**
 * `MANAGEMENT_CLUSTERS`: a JSON object, name -> one of the three forms above. Every problem is
 * reported with the entry and the field it is in; values are never echoed.
 */
export const managementClustersJson = z.string().transform((text, ctx): ManagementClusterSet => {
  const fail = (message: string): never => {
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER as never;
  };
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
  let valid = true;
  const problem = (message: string) => {
    valid = false;
    ctx.addIssue({ code: 'custom', message });
  };
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
  return valid ? clusters : z.NEVER;
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
