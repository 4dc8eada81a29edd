import * as z from 'zod';
import grantsFile from '../../../terraform/modules/runtime-grants.json';
import {
  formatSecretManagerName,
  isProjectNumber,
  parseSecretManagerName,
} from '../../../shared/gcp/secret-manager-names';
import { derivedProjectNumber } from '../../common/derived-number';
import type { IamBinding, IamConfigInput } from '../../common/iam/iam-config';

// What Terraform grants every runtime identity, as the local emulators' allow policies. Both read
// terraform/modules/runtime-grants.json: Terraform builds its bindings from it (each grant names the
// resource that binds it), and this file binds the same roles, custom roles and conditions to the
// local stack's resources, so Secret Manager, Cloud Run, Cloud Tasks, Resource Manager and the
// management clusters' GKE layer all authorize the product's calls as production would.

const identitySchema = z.enum(['adapter', 'launcher', 'job', 'reporter', 'reader']);

const grantSchema = z
  .object({
    /** One identity, or several given the same role on the same resource. */
    identity: z.union([identitySchema, z.array(identitySchema).min(1)]),
    on: z.enum([
      'job',
      'launch-queue',
      'management-cluster-queues',
      'launcher-account',
      'default-pull-secret',
      'tenant',
      'gke-cluster-project',
      'fleet-host-project',
      'platform-project',
      'results-topic',
      'sentinel-topic',
      'push-subscriptions',
      'api-token-secret',
      'management-clusters-bucket',
    ]),
    role: z
      .string()
      .regex(/^roles\/[A-Za-z.]+$/)
      .optional(),
    customRole: z
      .string()
      .regex(/^[A-Za-z]+$/)
      .optional(),
    condition: z.string().optional(),
    terraform: z.string().min(1),
  })
  .refine((g) => (g.role === undefined) !== (g.customRole === undefined), {
    message: 'a grant names either a predefined role or a custom role',
  });

export const runtimeGrantsSchema = z
  .object({
    conditions: z.record(z.string(), z.object({ title: z.string(), expression: z.string() })),
    customRoles: z.record(z.string(), z.array(z.string().regex(/^[a-z]+\.[A-Za-z]+\.[A-Za-z]+$/))),
    grants: z.record(z.string(), grantSchema),
  })
  .superRefine((file, ctx) => {
    for (const [key, grant] of Object.entries(file.grants)) {
      if (grant.customRole !== undefined && !(grant.customRole in file.customRoles))
        ctx.addIssue({ code: 'custom', message: `${key}: no custom role ${grant.customRole}` });
      if (grant.condition !== undefined && !(grant.condition in file.conditions))
        ctx.addIssue({ code: 'custom', message: `${key}: no condition ${grant.condition}` });
    }
  });
export type RuntimeGrants = z.infer<typeof runtimeGrantsSchema>;
export type RuntimeIdentity = z.infer<typeof identitySchema>;

/** The grants as Terraform reads them. */
export const RUNTIME_GRANTS: RuntimeGrants = runtimeGrantsSchema.parse(grantsFile);

/** A custom role's name in a local project (Terraform's carry a random suffix; the local ones do not). */
export const customRoleName = (project: string, role: string) =>
  `projects/${project}/roles/pullsecret_${role}_local`;

/**
 * The secret (`projects/ID/secrets/S`) of DEFAULT_PULL_SECRET_VERSION, by project id: the version
 * may name its project by number, as Secret Manager answers names (Terraform's secret version
 * `name` is one), and bindings name projects by id. `projectNumbers`: id -> number of the local
 * projects. Undefined for a value that is not a version name.
 */
export function defaultPullSecretOf(
  version: string | undefined,
  projectNumbers: Readonly<Record<string, string>>,
): string | undefined {
  const name = parseSecretManagerName(version ?? '');
  if (name?.version === undefined) return undefined;
  if (!isProjectNumber(name.project))
    return formatSecretManagerName({ project: name.project, secret: name.secret });
  const project = Object.entries(projectNumbers).find(([, n]) => n === name.project)?.[0];
  if (project === undefined)
    throw new Error(
      `DEFAULT_PULL_SECRET_VERSION names project number ${name.project}, which is none of the local projects (${Object.keys(projectNumbers).join(', ')}); name the project by id`,
    );
  return formatSecretManagerName({ project, secret: name.secret });
}

/** The local resources each kind of grant is bound to. */
export interface GrantTargets {
  /** The platform project: the job, the queue, the service accounts and the doctor's role live here. */
  readonly platformProject: string;
  readonly platformProjectNumber: string;
  readonly job: string;
  readonly launchQueue: string;
  /** Each management cluster's own launch queue (LAUNCH_QUEUE-NAME), when there are any. */
  readonly managementClusterQueues?: readonly string[];
  readonly launcherAccount: string;
  /** The customer projects onboarded with modules/pullsecret-tenant-project. */
  readonly tenantProjects: readonly string[];
  /** The platform default pull secret (`projects/P/secrets/S`), when configured. */
  readonly defaultPullSecret?: string;
  /** The projects of the GKE management clusters reached directly. */
  readonly gkeClusterProjects: readonly string[];
  /** The fleet host projects of the clusters reached through Connect Gateway. */
  readonly fleetHostProjects: readonly string[];
}

/**
 * The emulators' IAM configuration as Terraform would have left it: each grant bound to the local
 * resources of its kind, for the identities' emails, with `serviceAccounts` (numeric unique id ->
 * email) for tokens that carry no email. `grants` defaults to runtime-grants.json; a test passes
 * a copy with one permission removed.
 */
export function runtimeIam(options: {
  readonly targets: GrantTargets;
  readonly identities: Readonly<Record<RuntimeIdentity, string>>;
  readonly serviceAccounts?: Readonly<Record<string, string>>;
  readonly grants?: RuntimeGrants;
}): IamConfigInput {
  const { targets } = options;
  const file = options.grants ?? RUNTIME_GRANTS;
  const where: Record<RuntimeGrants['grants'][string]['on'], readonly string[]> = {
    job: [targets.job],
    // The adapter's rights on the fleet's queue hold on each management cluster's too (launch-queue.tf).
    'launch-queue': [targets.launchQueue, ...(targets.managementClusterQueues ?? [])],
    'management-cluster-queues': [...(targets.managementClusterQueues ?? [])],
    'launcher-account': [
      `projects/${targets.platformProject}/serviceAccounts/${targets.launcherAccount}`,
    ],
    'default-pull-secret': targets.defaultPullSecret ? [targets.defaultPullSecret] : [],
    tenant: targets.tenantProjects.map((p) => `projects/${p}`),
    'gke-cluster-project': targets.gkeClusterProjects.map((p) => `projects/${p}`),
    'fleet-host-project': targets.fleetHostProjects.map((p) => `projects/${p}`),
    'platform-project': [`projects/${targets.platformProject}`],
    // Pub/Sub runs on Google's own emulator, which has no IAM: its grants bind nothing locally
    // (the Terraform tests check them, and the doctor checks them in production). The HyperFleet
    // API token is a plain file locally, not a secret the components read.
    'results-topic': [],
    'sentinel-topic': [],
    'push-subscriptions': [],
    'api-token-secret': [],
    // No Cloud Storage emulator: the local job reads the list from a file under .local/.
    'management-clusters-bucket': [],
  };
  const projectOf = (resource: string) => resource.split('/')[1]!;
  const customRoles: Record<string, string[]> = {};
  const bindings: IamBinding[] = Object.values(file.grants).flatMap((grant) =>
    where[grant.on].map((resource) => {
      let role = grant.role;
      if (grant.customRole !== undefined) {
        // A project's custom role is granted in that project (the tenant role is an organization
        // role in production; per project here, which IAM evaluates the same way).
        role = customRoleName(projectOf(resource), grant.customRole);
        customRoles[role] = [...file.customRoles[grant.customRole]!];
      }
      const condition =
        grant.condition === undefined ? undefined : file.conditions[grant.condition]!;
      return {
        resource,
        role: role!,
        members: [grant.identity].flat().map((id) => `serviceAccount:${options.identities[id]}`),
        ...(condition ? { condition: { ...condition } } : {}),
      };
    }),
  );
  const projects = [
    ...new Set([
      targets.platformProject,
      ...targets.tenantProjects,
      ...targets.gkeClusterProjects,
      ...targets.fleetHostProjects,
      ...(targets.defaultPullSecret ? [projectOf(targets.defaultPullSecret)] : []),
    ]),
  ];
  return {
    projects: Object.fromEntries(
      projects.map((p) => [
        p,
        p === targets.platformProject ? targets.platformProjectNumber : derivedProjectNumber(p),
      ]),
    ),
    customRoles,
    serviceAccounts: { ...options.serviceAccounts },
    bindings,
  };
}

/**
 * The grants with one permission taken from one identity: its role on that kind of resource
 * becomes a custom role with the role's permissions minus `permission` (what a too-narrow custom
 * role, or a hand-edited binding, leaves). For the tests that show each permission is needed.
 */
export function withoutPermission(
  grants: RuntimeGrants,
  grantKey: string,
  permission: string,
  rolePermissions: (role: string) => readonly string[],
): RuntimeGrants {
  const grant = grants.grants[grantKey];
  if (!grant) throw new Error(`no grant ${grantKey}`);
  const held =
    grant.customRole !== undefined
      ? grants.customRoles[grant.customRole]!
      : rolePermissions(grant.role!);
  if (!held.includes(permission)) throw new Error(`${grantKey} does not hold ${permission}`);
  const name = `without${grantKey.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase())}`;
  const { role: _role, ...rest } = grant;
  return {
    ...grants,
    customRoles: { ...grants.customRoles, [name]: held.filter((p) => p !== permission) },
    grants: { ...grants.grants, [grantKey]: { ...rest, customRole: name } },
  };
}
