// Connect Gateway's rules, to read against its documentation
// (https://cloud.google.com/kubernetes-engine/enterprise/multicluster-management/gateway/using and
// .../gateway/setup):
// - The API is served under https://connectgateway.googleapis.com/v1/projects/PROJECT_NUMBER/
//   locations/LOCATION/gkeMemberships/MEMBERSHIP (GKE clusters registered to a fleet; attached and
//   other clusters use /memberships/, which this project does not accept). The project is the fleet
//   host project's NUMBER.
// - The caller authenticates with a Google OAuth access token; the gateway checks IAM on the
//   membership: gkehub.gateway.get for GET (and HEAD), .post, .put, .patch, .delete for the others.
//   roles/gkehub.gatewayReader holds get; roles/gkehub.gatewayEditor holds all five;
//   roles/gkehub.gatewayAdmin adds generateCredentials and stream. Kubernetes RBAC in the cluster
//   still decides.
// - Denials are Google API errors ({"error": {code, message, status}}); the exact wording of the
//   permission message is modelled on the one the troubleshooting page quotes.

/** The path of a GKE membership's Kubernetes API on the gateway, and what follows it. */
export const MEMBERSHIP_PATH =
  /^\/v1\/projects\/([0-9]+)\/locations\/([a-z0-9-]+)\/gkeMemberships\/([a-z0-9-]+)(\/.*)?$/;

/** The gateway permission an HTTP method needs. */
export function permissionFor(method: string): string {
  const verb = method === 'HEAD' ? 'get' : method.toLowerCase();
  return `gkehub.gateway.${verb}`;
}

/** Which gateway permissions each predefined role holds. */
export const GATEWAY_ROLES: Readonly<Record<string, readonly string[]>> = {
  'roles/gkehub.gatewayReader': ['gkehub.gateway.get'],
  'roles/gkehub.gatewayEditor': [
    'gkehub.gateway.get',
    'gkehub.gateway.post',
    'gkehub.gateway.put',
    'gkehub.gateway.patch',
    'gkehub.gateway.delete',
  ],
  'roles/gkehub.gatewayAdmin': [
    'gkehub.gateway.get',
    'gkehub.gateway.post',
    'gkehub.gateway.put',
    'gkehub.gateway.patch',
    'gkehub.gateway.delete',
    'gkehub.gateway.generateCredentials',
    'gkehub.gateway.stream',
  ],
};

/** A Google API error body. */
export const googleError = (code: number, status: string, message: string) => ({
  error: { code, message, status },
});
