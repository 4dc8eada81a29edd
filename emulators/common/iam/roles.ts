// The predefined roles this project grants on Secret Manager, with the permissions Google lists for
// them (https://cloud.google.com/secret-manager/docs/access-control, "Secret Manager roles"), and
// the GKE roles that decide what a Google identity may do in a management cluster (below).
// Custom roles (Terraform's google_project_iam_custom_role) come from the IAM configuration.

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
const KUBERNETES_OBJECTS_WRITE = [
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
  'roles/container.admin': [
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
  ],
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
  'roles/editor': [
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
  ],
};

/** A permission as IAM spells one: service.resource.verb (no wildcards in testIamPermissions). */
export const PERMISSION = /^[a-z][a-z0-9]*\.[A-Za-z]+\.[A-Za-z]+$/;
