import {
  formatSecretManagerName,
  isProjectNumber,
  parseSecretManagerName,
} from '../../../shared/gcp/secret-manager-names';
import { derivedProjectNumber } from '../../common/derived-number';
import type { IamBinding, IamConfigInput } from '../../secret-manager/iam/iam-config';

// What Terraform grants on Secret Manager, as the local Secret Manager emulator's allow policies:
// per customer project what terraform/modules/pullsecret-tenant-project binds (the job's custom
// role, conditioned to hyperfleet-* secrets and the project, for CreateSecret; HyperShift's
// reader's roles/secretmanager.secretAccessor and the reporter's roles/secretmanager.viewer, both
// conditioned to hyperfleet-* secrets), and the job's accessor on the platform default pull secret
// (terraform/modules/pullsecret-adapter/secret-manager-iam.tf).
// test/unit/emulators/secret-manager-grants.test.ts compares this with the Terraform files.

/** The job's custom role's permissions: exactly the calls it makes (modules/pullsecret-tenant-role). */
export const JOB_SECRET_MANAGER_PERMISSIONS = [
  'secretmanager.secrets.create',
  'secretmanager.secrets.get',
  'secretmanager.secrets.update',
  'secretmanager.versions.access',
  'secretmanager.versions.add',
  'secretmanager.versions.destroy',
  'secretmanager.versions.disable',
  'secretmanager.versions.list',
] as const;

/** The custom role's name in a project (Terraform's has a random suffix; the local one is fixed). */
export const jobRoleName = (project: string) =>
  `projects/${project}/roles/pullsecret_pullSecretManager_local`;

/** The tenant module's condition on the job's grant (no project number: it fits a folder too). */
export const jobCondition = () =>
  `resource.type == "cloudresourcemanager.googleapis.com/Project" || ${hyperfleetSecretsCondition()}`;

/** The tenant module's condition on the reader's and the reporter's grants. */
export const hyperfleetSecretsCondition = () =>
  `resource.name.extract("/secrets/{id}").startsWith("hyperfleet-")`;

/** The identities Terraform grants. */
export interface SecretManagerIdentities {
  readonly job: string;
  readonly reader: string;
  readonly reporter: string;
}

/** The emulator's IAM configuration as Terraform would have left it for these projects. */
export function secretManagerIam(options: {
  /** The customer projects onboarded (modules/pullsecret-tenant-project, one call each). */
  readonly targetProjects: readonly string[];
  /** The platform project (where the default pull secret lives). */
  readonly platformProject: string;
  readonly identities: SecretManagerIdentities;
  /** Service accounts by numeric unique id (tokens without the email scope name only that). */
  readonly serviceAccounts?: Readonly<Record<string, string>>;
  /** DEFAULT_PULL_SECRET_VERSION, when configured: the job may access that secret. */
  readonly defaultPullSecretVersion?: string;
}): IamConfigInput {
  const defaultSecret = defaultSecretOf(options);
  const projects = [
    ...new Set([
      ...options.targetProjects,
      options.platformProject,
      ...(defaultSecret ? [defaultSecret.project] : []),
    ]),
  ];
  const sa = (email: string) => `serviceAccount:${email}`;
  const bindings: IamBinding[] = options.targetProjects.flatMap((project) => {
    return [
      {
        resource: `projects/${project}`,
        role: jobRoleName(project),
        members: [sa(options.identities.job)],
        condition: { title: 'hyperfleet-secrets-only', expression: jobCondition() },
      },
      {
        resource: `projects/${project}`,
        role: 'roles/secretmanager.secretAccessor',
        members: [sa(options.identities.reader)],
        condition: {
          title: 'hyperfleet-secrets-only',
          expression: hyperfleetSecretsCondition(),
        },
      },
      {
        resource: `projects/${project}`,
        role: 'roles/secretmanager.viewer',
        members: [sa(options.identities.reporter)],
        condition: {
          title: 'hyperfleet-secrets-only',
          expression: hyperfleetSecretsCondition(),
        },
      },
    ];
  });
  if (defaultSecret)
    bindings.push({
      resource: formatSecretManagerName({
        project: defaultSecret.project,
        secret: defaultSecret.secret,
      }),
      role: 'roles/secretmanager.secretAccessor',
      members: [sa(options.identities.job)],
    });
  return {
    projects: Object.fromEntries(projects.map((p) => [p, derivedProjectNumber(p)])),
    customRoles: Object.fromEntries(
      options.targetProjects.map((p) => [jobRoleName(p), [...JOB_SECRET_MANAGER_PERMISSIONS]]),
    ),
    serviceAccounts: { ...options.serviceAccounts },
    bindings,
  };
}

/**
 * The default pull secret's project (by id) and secret id. DEFAULT_PULL_SECRET_VERSION may name the
 * project by number, as Secret Manager answers names (Terraform's secret version `name` is one):
 * bindings are by id, so a number is taken back to the local project whose derived number it is.
 */
function defaultSecretOf(options: {
  readonly targetProjects: readonly string[];
  readonly platformProject: string;
  readonly defaultPullSecretVersion?: string;
}): { project: string; secret: string } | undefined {
  const name = parseSecretManagerName(options.defaultPullSecretVersion ?? '');
  if (name?.version === undefined) return undefined;
  if (!isProjectNumber(name.project)) return { project: name.project, secret: name.secret };
  const known = [options.platformProject, ...options.targetProjects];
  const project = known.find((p) => derivedProjectNumber(p) === name.project);
  if (project === undefined)
    throw new Error(
      `DEFAULT_PULL_SECRET_VERSION names project number ${name.project}, which is none of the local projects (${known.join(', ')}); name the project by id`,
    );
  return { project, secret: name.secret };
}
