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
  /** The launcher, on the job (https://cloud.google.com/run/docs/reference/iam/roles). */
  'roles/run.jobsExecutorWithOverrides': [
    'run.executions.get',
    'run.executions.list',
    'run.jobs.get',
    'run.jobs.list',
    'run.jobs.run',
    'run.jobs.runWithOverrides',
    'run.tasks.get',
    'run.tasks.list',
  ],
  /** The reporter, on the job (https://cloud.google.com/run/docs/reference/iam/roles). */
  'roles/run.viewer': [
    ...PROJECT_READ,
    'run.executions.get',
    'run.executions.list',
    'run.jobs.get',
    'run.jobs.getIamPolicy',
    'run.jobs.list',
    'run.tasks.get',
    'run.tasks.list',
  ],
  /** The adapter, on the launch queue (https://cloud.google.com/iam/docs/roles-permissions/cloudtasks). */
  'roles/cloudtasks.enqueuer': ['cloudtasks.tasks.create', 'cloudtasks.tasks.fullView'],
  /** The adapter, on the launcher's account (https://cloud.google.com/iam/docs/service-account-permissions). */
  'roles/iam.serviceAccountUser': [
    ...PROJECT_READ,
    'iam.serviceAccounts.actAs',
    'iam.serviceAccounts.get',
    'iam.serviceAccounts.list',
  ],
  /** The job, on a GKE management cluster's project (https://cloud.google.com/kubernetes-engine/docs/how-to/iam#predefined). */
  'roles/container.clusterViewer': [
    ...PROJECT_READ,
    'container.clusters.connect',
    'container.clusters.get',
    'container.clusters.list',
  ],
  /** The job, on a Connect Gateway fleet host project (https://cloud.google.com/iam/docs/roles-permissions/gkehub). */
  'roles/gkehub.gatewayEditor': [
    'gkehub.gateway.delete',
    'gkehub.gateway.get',
    'gkehub.gateway.getIamPolicy',
    'gkehub.gateway.patch',
    'gkehub.gateway.post',
    'gkehub.gateway.put',
    'gkehub.memberships.get',
  ],
};

/** A permission as IAM spells one: service.resource.verb (no wildcards in testIamPermissions). */
export const PERMISSION = /^[a-z][a-z0-9]*\.[A-Za-z]+\.[A-Za-z]+$/;
