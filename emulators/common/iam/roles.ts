// The predefined roles this project grants on Secret Manager, with the permissions Google lists for
// them (https://cloud.google.com/secret-manager/docs/access-control, "Secret Manager roles").
// Custom roles (Terraform's google_project_iam_custom_role) come from the IAM configuration.

const PROJECT_READ = ['resourcemanager.projects.get', 'resourcemanager.projects.list'];

export const PREDEFINED_ROLES: Readonly<Record<string, readonly string[]>> = {
  'roles/secretmanager.admin': [
    ...PROJECT_READ,
    'secretmanager.locations.get',
    'secretmanager.locations.list',
    'secretmanager.secrets.create',
    'secretmanager.secrets.delete',
    'secretmanager.secrets.get',
    'secretmanager.secrets.getIamPolicy',
    'secretmanager.secrets.list',
    'secretmanager.secrets.setIamPolicy',
    'secretmanager.secrets.update',
    'secretmanager.versions.access',
    'secretmanager.versions.add',
    'secretmanager.versions.destroy',
    'secretmanager.versions.disable',
    'secretmanager.versions.enable',
    'secretmanager.versions.get',
    'secretmanager.versions.list',
  ],
  /** What HyperShift's reader holds (conditioned) and the job on the platform default. */
  'roles/secretmanager.secretAccessor': [...PROJECT_READ, 'secretmanager.versions.access'],
  /** What the reporter holds (conditioned): metadata, never payloads. */
  'roles/secretmanager.viewer': [
    ...PROJECT_READ,
    'secretmanager.locations.get',
    'secretmanager.locations.list',
    'secretmanager.secrets.get',
    'secretmanager.secrets.getIamPolicy',
    'secretmanager.secrets.list',
    'secretmanager.versions.get',
    'secretmanager.versions.list',
  ],
  'roles/secretmanager.secretVersionAdder': [...PROJECT_READ, 'secretmanager.versions.add'],
  'roles/secretmanager.secretVersionManager': [
    ...PROJECT_READ,
    'secretmanager.versions.add',
    'secretmanager.versions.destroy',
    'secretmanager.versions.disable',
    'secretmanager.versions.enable',
    'secretmanager.versions.get',
    'secretmanager.versions.list',
  ],
};

/** A permission as IAM spells one: service.resource.verb (no wildcards in testIamPermissions). */
export const PERMISSION = /^[a-z][a-z0-9]*\.[A-Za-z]+\.[A-Za-z]+$/;
