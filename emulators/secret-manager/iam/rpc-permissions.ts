// The permission each Secret Manager RPC needs, and on which resource IAM checks it, from the
// method reference pages ("Authorization requires the following IAM permission on the specified
// resource ..."), e.g. https://cloud.google.com/secret-manager/docs/reference/rest/v1/projects.secrets/create
// (secretmanager.secrets.create on the parent project). Version permissions are checked on the
// version, whose policy is its secret's.

/** What IAM checks for one request. */
export interface RequiredPermission {
  readonly permission: string;
  /** The resource name as the request gave it: what IAM checks, and the PERMISSION_DENIED names. */
  readonly resource: string;
}

const NAME = /^projects\/([^/]+)(?:\/secrets\/([^/]+)(?:\/versions\/([^/]+))?)?$/;

/** Where each method's resource name is, and the permission it needs. */
const METHODS: Readonly<Record<string, { readonly field: string; readonly permission: string }>> = {
  CreateSecret: { field: 'parent', permission: 'secretmanager.secrets.create' },
  ListSecrets: { field: 'parent', permission: 'secretmanager.secrets.list' },
  GetSecret: { field: 'name', permission: 'secretmanager.secrets.get' },
  UpdateSecret: { field: 'secret.name', permission: 'secretmanager.secrets.update' },
  DeleteSecret: { field: 'name', permission: 'secretmanager.secrets.delete' },
  AddSecretVersion: { field: 'parent', permission: 'secretmanager.versions.add' },
  ListSecretVersions: { field: 'parent', permission: 'secretmanager.versions.list' },
  AccessSecretVersion: { field: 'name', permission: 'secretmanager.versions.access' },
  GetSecretVersion: { field: 'name', permission: 'secretmanager.versions.get' },
  DisableSecretVersion: { field: 'name', permission: 'secretmanager.versions.disable' },
  EnableSecretVersion: { field: 'name', permission: 'secretmanager.versions.enable' },
  DestroySecretVersion: { field: 'name', permission: 'secretmanager.versions.destroy' },
};

/** The parts of a Secret Manager name; undefined when it is not one. */
export function secretManagerNameParts(
  name: string,
): { project: string; secret?: string; version?: string } | undefined {
  const match = NAME.exec(name);
  if (!match) return undefined;
  return {
    project: match[1]!,
    ...(match[2] !== undefined ? { secret: match[2] } : {}),
    ...(match[3] !== undefined ? { version: match[3] } : {}),
  };
}

/**
 * The permission `method` needs for `request`; undefined for methods that need none
 * (TestIamPermissions) and for malformed names (the method itself answers INVALID_ARGUMENT).
 */
export function requiredPermission(
  method: string,
  request: Readonly<Record<string, unknown>>,
): RequiredPermission | undefined {
  const rule = METHODS[method];
  if (!rule) return undefined;
  const [first, second] = rule.field.split('.') as [string, string | undefined];
  const holder = request[first];
  const value =
    second === undefined
      ? holder
      : typeof holder === 'object' && holder !== null
        ? (holder as Record<string, unknown>)[second]
        : undefined;
  if (typeof value !== 'string') return undefined;
  return secretManagerNameParts(value)
    ? { permission: rule.permission, resource: value }
    : undefined;
}
