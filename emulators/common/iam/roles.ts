// The predefined roles this project grants on Secret Manager, Cloud Run, Cloud Tasks and GKE (and the
// operators' roles for the last two), with the permissions Google lists for them: Secret Manager
// https://cloud.google.com/secret-manager/docs/access-control ("Secret Manager roles"), Cloud Run
// https://cloud.google.com/iam/docs/roles-permissions/run (also
// https://cloud.google.com/run/docs/reference/iam/roles), Cloud Tasks
// https://cloud.google.com/iam/docs/roles-permissions/cloudtasks (also
// https://cloud.google.com/tasks/docs/reference-access-control). Each role keeps its own service's
// permissions and resourcemanager.projects.*; what it holds of services no emulator here checks
// (recommender.* in the Cloud Run roles, monitoring.timeSeries.list in Cloud Tasks Admin and
// Viewer) is left out. Custom roles (Terraform's google_project_iam_custom_role) come from the IAM
// configuration.

const PROJECT_READ = ['resourcemanager.projects.get', 'resourcemanager.projects.list'];

/** `container.RESOURCE.VERB` for each verb: the permission names GKE's roles list. */
const container = (resource: string, verbs: readonly string[]) =>
  verbs.map((verb) => `container.${resource}.${verb}`);

/**
 * The Kubernetes-object part of roles/container.developer (and of roles/container.admin and
 * roles/editor), for the resources the Kubernetes emulator maps to IAM (kube-apiserver/gke-iam.ts):
 * "Full access to Kubernetes API objects inside Kubernetes Clusters". Secrets included: this is how
 * a project-level role restores the Secret reads the job's RBAC leaves out.
 */
const KUBERNETES_OBJECTS_WRITE: readonly string[] = [
  ...container('configMaps', ['create', 'delete', 'get', 'list', 'update']),
  ...container('customResourceDefinitions', [
    'create',
    'delete',
    'get',
    'getStatus',
    'list',
    'update',
    'updateStatus',
  ]),
  ...container('namespaces', [
    'create',
    'delete',
    'finalize',
    'get',
    'getStatus',
    'list',
    'update',
    'updateStatus',
  ]),
  ...container('secrets', ['create', 'delete', 'get', 'list', 'update']),
  ...container('thirdPartyObjects', ['create', 'delete', 'get', 'list', 'update']),
];

/**
 * The clusters themselves and every Kubernetes object: Kubernetes Engine Admin's container.*
 * permissions, which Editor's container part equals (for what the emulator checks).
 */
const CONTAINER_ADMIN: readonly string[] = [
  ...PROJECT_READ,
  ...container('clusters', [
    'connect',
    'create',
    'delete',
    'get',
    'getCredentials',
    'list',
    'update',
  ]),
  ...KUBERNETES_OBJECTS_WRITE,
];

/** Cloud Run Viewer: "Can view the state of all Cloud Run resources, including IAM policies." */
const RUN_VIEWER = [
  ...PROJECT_READ,
  'run.configurations.get',
  'run.configurations.list',
  'run.executions.get',
  'run.executions.list',
  'run.instances.get',
  'run.instances.getIamPolicy',
  'run.instances.list',
  'run.jobs.get',
  'run.jobs.getIamPolicy',
  'run.jobs.list',
  'run.jobs.listEffectiveTags',
  'run.jobs.listTagBindings',
  'run.locations.list',
  'run.operations.get',
  'run.operations.list',
  'run.prompts.get',
  'run.revisions.get',
  'run.revisions.list',
  'run.routes.get',
  'run.routes.list',
  'run.services.get',
  'run.services.getIamPolicy',
  'run.services.list',
  'run.services.listEffectiveTags',
  'run.services.listTagBindings',
  'run.tasks.get',
  'run.tasks.list',
  'run.workerpools.get',
  'run.workerpools.getIamPolicy',
  'run.workerpools.list',
];

/** Cloud Run Developer: "Read and write access to all Cloud Run resources" (the viewer's, and these). */
const RUN_DEVELOPER = [
  ...RUN_VIEWER,
  'run.executions.cancel',
  'run.executions.delete',
  'run.instances.create',
  'run.instances.delete',
  'run.instances.invoke',
  'run.instances.sshRead',
  'run.instances.sshRoot',
  'run.instances.start',
  'run.instances.stop',
  'run.instances.update',
  'run.jobs.create',
  'run.jobs.delete',
  'run.jobs.run',
  'run.jobs.runWithOverrides',
  'run.jobs.sshRead',
  'run.jobs.sshRoot',
  'run.jobs.update',
  'run.locations.uploadSource',
  'run.operations.delete',
  'run.revisions.delete',
  'run.routes.invoke',
  'run.services.create',
  'run.services.delete',
  'run.services.sshRead',
  'run.services.sshRoot',
  'run.services.update',
  'run.workerpools.create',
  'run.workerpools.delete',
  'run.workerpools.sshRead',
  'run.workerpools.sshRoot',
  'run.workerpools.update',
];

/** Cloud Tasks Queue Admin: "Admin access to queues" (cloudtasks.locations.*, cloudtasks.queues.*). */
const CLOUDTASKS_QUEUE_ADMIN = [
  ...PROJECT_READ,
  'cloudtasks.locations.get',
  'cloudtasks.locations.list',
  'cloudtasks.queues.create',
  'cloudtasks.queues.delete',
  'cloudtasks.queues.get',
  'cloudtasks.queues.getIamPolicy',
  'cloudtasks.queues.list',
  'cloudtasks.queues.pause',
  'cloudtasks.queues.purge',
  'cloudtasks.queues.resume',
  'cloudtasks.queues.setIamPolicy',
  'cloudtasks.queues.update',
];

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
  // Cloud Run. The launcher runs the job with overrides (run.jobs.runWithOverrides: the narrowest
  // predefined role with it, granted on the job); the reporter reads executions (Viewer, on the job).
  'roles/run.jobsExecutorWithOverrides': [
    'run.executions.cancel',
    'run.jobs.run',
    'run.jobs.runWithOverrides',
  ],
  'roles/run.jobsExecutor': ['run.executions.cancel', 'run.jobs.run'],
  /** "Can invoke Cloud Run services and execute Cloud Run jobs" (the functions' invokers). */
  'roles/run.invoker': ['run.instances.invoke', 'run.jobs.run', 'run.routes.invoke'],
  'roles/run.viewer': RUN_VIEWER,
  'roles/run.developer': RUN_DEVELOPER,
  /** "Full control over all Cloud Run resources" (run.*): the developer's, and IAM policies and tags. */
  'roles/run.admin': [
    ...RUN_DEVELOPER,
    'run.instances.setIamPolicy',
    'run.jobs.createTagBinding',
    'run.jobs.deleteTagBinding',
    'run.jobs.setIamPolicy',
    'run.services.createTagBinding',
    'run.services.deleteTagBinding',
    'run.services.setIamPolicy',
    'run.workerpools.setIamPolicy',
  ],
  // Cloud Tasks. The adapter creates its launch tasks (Enqueuer, on the queue; its reads and
  // deletes come from a custom role); operators pause and resume the queue (Queue Admin).
  /** "Access to create tasks." */
  'roles/cloudtasks.enqueuer': [
    ...PROJECT_READ,
    'cloudtasks.operations.get',
    'cloudtasks.tasks.create',
    'cloudtasks.tasks.fullView',
  ],
  /** "Get and list access to tasks, queues, and locations." */
  'roles/cloudtasks.viewer': [
    ...PROJECT_READ,
    'cloudtasks.cmekConfig.get',
    'cloudtasks.locations.get',
    'cloudtasks.locations.list',
    'cloudtasks.operations.get',
    'cloudtasks.queues.get',
    'cloudtasks.queues.list',
    'cloudtasks.tasks.fullView',
    'cloudtasks.tasks.get',
    'cloudtasks.tasks.list',
  ],
  'roles/cloudtasks.taskDeleter': [...PROJECT_READ, 'cloudtasks.tasks.delete'],
  'roles/cloudtasks.taskRunner': [
    ...PROJECT_READ,
    'cloudtasks.tasks.fullView',
    'cloudtasks.tasks.run',
  ],
  'roles/cloudtasks.queueAdmin': CLOUDTASKS_QUEUE_ADMIN,
  /**
   * Service Account User, "Run operations as the service account"
   * (https://cloud.google.com/iam/docs/roles-permissions/iam): what the adapter holds on the
   * launcher account, to create tasks that carry the launcher's token.
   */
  'roles/iam.serviceAccountUser': [
    ...PROJECT_READ,
    'iam.serviceAccounts.actAs',
    'iam.serviceAccounts.get',
    'iam.serviceAccounts.list',
  ],
  /** "Full access to queues and tasks" (cloudtasks.*). */
  'roles/cloudtasks.admin': [
    ...CLOUDTASKS_QUEUE_ADMIN,
    'cloudtasks.cmekConfig.get',
    'cloudtasks.cmekConfig.update',
    'cloudtasks.operations.get',
    'cloudtasks.tasks.create',
    'cloudtasks.tasks.delete',
    'cloudtasks.tasks.fullView',
    'cloudtasks.tasks.get',
    'cloudtasks.tasks.list',
    'cloudtasks.tasks.run',
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

  // GKE (https://cloud.google.com/kubernetes-engine/docs/how-to/iam#predefined, full lists at
  // https://cloud.google.com/iam/docs/roles-permissions/container). GKE authorizes a Google
  // identity's Kubernetes requests with IAM as well as RBAC, so these roles reach inside the
  // clusters of the project they are granted on. Each lists the container.* permissions the
  // Kubernetes emulator checks (container.clusters.get to be let in; the objects of gke-iam.ts'
  // table); the real roles hold many more (pods, deployments...), which nothing here asks about.
  /** Kubernetes Engine Cluster Viewer: what Terraform grants the job (cluster-access.tf). No objects. */
  'roles/container.clusterViewer': [
    ...PROJECT_READ,
    ...container('clusters', ['connect', 'get', 'list']),
  ],
  /** Kubernetes Engine Viewer: read-only, and no container.secrets.* permission at all. */
  'roles/container.viewer': [
    ...PROJECT_READ,
    ...container('clusters', ['get', 'list']),
    ...container('configMaps', ['get', 'list']),
    ...container('customResourceDefinitions', ['get', 'getStatus', 'list']),
    ...container('namespaces', ['get', 'getStatus', 'list']),
    ...container('thirdPartyObjects', ['get', 'list']),
  ],
  /** Kubernetes Engine Developer, "Full access to Kubernetes API objects": Secrets included. */
  'roles/container.developer': [
    ...PROJECT_READ,
    ...container('clusters', ['connect', 'get', 'list']),
    ...KUBERNETES_OBJECTS_WRITE,
  ],
  /** Kubernetes Engine Admin: the clusters themselves and every Kubernetes object. */
  'roles/container.admin': CONTAINER_ADMIN,
  /** Kubernetes Engine Cluster Admin: the clusters (create, update...), no Kubernetes object. */
  'roles/container.clusterAdmin': [
    ...PROJECT_READ,
    ...container('clusters', ['create', 'delete', 'get', 'list', 'update']),
    ...container('operations', ['get', 'list']),
  ],
  /**
   * Editor, its container.* part only (the basic role holds Kubernetes Engine Developer's object
   * permissions and more: https://cloud.google.com/iam/docs/roles-overview#basic). Its other
   * services' permissions (Secret Manager's among them) are not modelled: a binding of it here
   * grants nothing outside GKE.
   */
  'roles/editor': CONTAINER_ADMIN,
};

/** A permission as IAM spells one: service.resource.verb (no wildcards in testIamPermissions). */
export const PERMISSION = /^[a-z][a-z0-9]*\.[A-Za-z]+\.[A-Za-z]+$/;
