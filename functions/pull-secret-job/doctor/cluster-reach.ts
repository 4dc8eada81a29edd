import { fail, ok, type CheckResult } from './check';

/** What the first call to a management cluster gave, before any right is judged. */
export type ReachAnswer =
  | { readonly kind: 'answered' }
  | { readonly kind: 'config'; readonly detail: string }
  | { readonly kind: 'http'; readonly status: number; readonly message: string }
  | { readonly kind: 'tls'; readonly detail: string }
  | { readonly kind: 'unreachable'; readonly detail: string };

const DOC = 'docs/management-clusters.md';

/** The job reaches the cluster with its Google identity, as its runs do (pure). */
export function judgeReach(
  cluster: string,
  endpoint: string,
  answer: ReachAnswer,
  identity: string,
): CheckResult {
  const name = `cluster ${cluster} reach`;
  const where = `MANAGEMENT_CLUSTERS entry "${cluster}" (${endpoint})`;
  switch (answer.kind) {
    case 'answered':
      return ok(name, `${endpoint} answered as ${identity}`);
    case 'config':
      return fail(name, answer.detail, {
        problem: `The job cannot build a client for ${cluster}.`,
        resource: where,
        action:
          'Fix the entry in Terraform management_clusters and terraform apply (docs/management-clusters.md).',
      });
    case 'tls':
      return fail(name, `TLS: ${answer.detail}`, {
        problem: `The job does not trust ${cluster}'s certificate.`,
        resource: `${where}: its caCert`,
        action: `A GKE IP endpoint needs its cluster CA as ca_certificate; a DNS-based endpoint and Connect Gateway need none (${DOC}, "Reaching a management cluster").`,
      });
    case 'unreachable':
      return fail(name, `no answer: ${answer.detail}`, {
        problem: `The job cannot connect to ${cluster}.`,
        resource: where,
        action: `Check the endpoint and the job's network path to it (a private endpoint needs the network variable; ${DOC}, "Reaching a management cluster").`,
      });
    case 'http':
      if (answer.status === 401)
        return fail(name, `401: ${answer.message}`, {
          problem: `${cluster} does not accept the job's Google access token (GKE knows the job by email only with the userinfo.email scope, and only with container.clusters.get).`,
          resource: `${identity}: roles/container.clusterViewer on the cluster's project (IAM per kind)`,
          action: `terraform apply grants it (docs/management-clusters.md, "Reaching a management cluster"); ${DOC}, "The token the job sends".`,
        });
      if (answer.status === 403 || answer.status === 404)
        return fail(name, `${answer.status}: ${answer.message}`, {
          problem:
            answer.status === 403
              ? `${cluster} refused the job before Kubernetes RBAC (GKE without container.clusters.get on the cluster's project, or without container.clusters.connect at a DNS endpoint; Connect Gateway without roles/gkehub.gatewayEditor).`
              : `${cluster}'s endpoint names no cluster (a Connect Gateway membership that does not exist?).`,
          resource: where,
          action: `terraform apply grants the IAM per kind (docs/management-clusters.md); ${DOC}, "Reaching a management cluster".`,
        });
      return fail(name, `${answer.status}: ${answer.message}`, {
        problem: `${cluster} answered ${answer.status}.`,
        resource: where,
        action: `Look at the cluster's health (${DOC}).`,
      });
  }
}
