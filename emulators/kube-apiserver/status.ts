/** A `metav1.Status` failure, as the API server answers errors. */
export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    /** A denial by an admission policy carries a cause with a message only. */
    causes?: { reason?: string; message: string; field?: string }[];
  };
  code: number;
}

/** An API error: the HTTP status plus the Status body. */
export class KubeError extends Error {
  constructor(readonly status: KubeStatus) {
    super(status.message);
  }
}

const failure = (
  code: number,
  reason: string,
  message: string,
  details?: KubeStatus['details'],
): KubeError =>
  new KubeError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  });

export const notFound = (kind: string, name: string) =>
  failure(404, 'NotFound', `${kind} "${name}" not found`, { name, kind });

export const alreadyExists = (kind: string, name: string) =>
  failure(409, 'AlreadyExists', `${kind} "${name}" already exists`, { name, kind });

export const conflict = (kind: string, name: string, message?: string) =>
  failure(
    409,
    'Conflict',
    message ??
      `Operation cannot be fulfilled on ${kind} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name, kind },
  );

export const invalid = (
  kindTitle: string,
  name: string,
  causes: { field: string; message: string; reason?: string }[],
) =>
  failure(
    422,
    'Invalid',
    // One cause is printed alone; several as the API server prints an aggregate: [a, b].
    `${kindTitle} "${name}" is invalid: ${causes.length === 1 ? `${causes[0]!.field}: ${causes[0]!.message}` : `[${causes.map((c) => `${c.field}: ${c.message}`).join(', ')}]`}`,
    {
      name,
      kind: kindTitle,
      causes: causes.map((c) => ({
        reason: c.reason ?? 'FieldValueInvalid',
        message: c.message,
        field: c.field,
      })),
    },
  );

export const badRequest = (message: string) => failure(400, 'BadRequest', message);

export const unauthorized = () => failure(401, 'Unauthorized', 'Unauthorized');

export const forbidden = (
  user: string,
  verb: string,
  resource: string,
  name: string | undefined,
  namespace: string | undefined,
  group = '',
  /**
   * On GKE, the IAM permission that would also have allowed it: GKE's IAM authorizer adds it to
   * RBAC's reason (`: requires one of ["container.pods.create"] permission(s).`, gke-iam.ts).
   */
  iamPermission?: string,
) =>
  failure(
    403,
    'Forbidden',
    `${group ? `${resource}.${group}` : resource}${name ? ` "${name}"` : ''} is forbidden: User "${user}" cannot ${verb} resource "${resource}" in API group "${group}"${namespace ? ` in the namespace "${namespace}"` : ' at the cluster scope'}${iamPermission ? `: requires one of ["${iamPermission}"] permission(s).` : ''}`,
    { ...(name ? { name } : {}), ...(group ? { group } : {}), kind: resource },
  );

/**
 * GKE refusing a Google identity before Kubernetes authorization (no container.clusters.get on the
 * cluster): a Forbidden Status carrying Google's own message (gke-iam.ts).
 */
export const forbiddenByGoogle = (message: string) => failure(403, 'Forbidden', message);

/**
 * A 403 for a reason other than RBAC, worded as apimachinery's `errors.NewForbidden(resource,
 * name, err)` (what admission plugins answer): `<resource>[.<group>] "<name>" is forbidden: <why>`.
 */
export const forbiddenBecause = (
  resource: string,
  group: string,
  name: string,
  why: string,
  causes?: NonNullable<KubeStatus['details']>['causes'],
) =>
  failure(
    403,
    'Forbidden',
    `${group ? `${resource}.${group}` : resource}${name ? ` "${name}"` : ''} is forbidden: ${why}`,
    {
      ...(name ? { name } : {}),
      ...(group ? { group } : {}),
      kind: resource,
      ...(causes ? { causes } : {}),
    },
  );

export const methodNotAllowed = (method: string) =>
  failure(
    405,
    'MethodNotAllowed',
    `the server does not allow this method on the requested resource (${method})`,
  );

export const unsupportedMediaType = (type: string) =>
  failure(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json (got ${type})`,
  );

export const internalError = (message: string) => failure(500, 'InternalError', message);

/** A failure with an arbitrary HTTP status, for fault injection. */
export const injected = (code: number, message?: string) =>
  failure(
    code,
    code === 503
      ? 'ServiceUnavailable'
      : code === 500
        ? 'InternalError'
        : code === 409
          ? 'Conflict'
          : 'Unknown',
    message ?? `injected fault: HTTP ${code}`,
  );
