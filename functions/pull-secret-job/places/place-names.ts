import { MANAGEMENT_CLUSTER_NAME } from '../config/management-clusters';

// A recorded place is read back from the Secret Manager secret's annotations, in the tenant's
// project: the tenant can edit it. Each part becomes a segment of a Kubernetes API path
// (/api/v1/namespaces/{namespace}/secrets/{name}) on the management cluster {cluster}, so a part
// that is not a valid name, `..` above all, would reach another path. Only names Kubernetes itself
// accepts are used; anything else is ignored (never written, read or deleted).

/** A namespace: a DNS label (RFC 1123), at most 63 characters. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** A Secret name: a DNS subdomain (RFC 1123): DNS labels joined by dots, at most 253 characters. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Why a recorded place cannot be used, or undefined when all three of its names are valid. */
export function placeNameProblem(place: {
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
}): string | undefined {
  const problems: string[] = [];
  if (!MANAGEMENT_CLUSTER_NAME.test(place.cluster))
    problems.push('the management cluster name is not a DNS label');
  if (!DNS_LABEL.test(place.namespace)) problems.push('the namespace is not a DNS label');
  if (place.name.length > 253 || !DNS_SUBDOMAIN.test(place.name))
    problems.push('the Secret name is not a DNS subdomain');
  return problems.length ? problems.join('; ') : undefined;
}
