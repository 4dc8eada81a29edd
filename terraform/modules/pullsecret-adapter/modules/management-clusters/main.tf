locals {
  legacy = var.legacy_management_cluster != null

  # With the deprecated single variable the cluster goes by default_management_cluster, or "default"
  # as the job names the cluster its single-cluster variables define.
  legacy_name = coalesce(var.default_management_cluster, "default")

  # One shape for both inputs. cluster_wide: a ClusterRoleBinding (fenced); namespaces: RoleBindings.
  clusters = local.legacy ? tomap({
    (local.legacy_name) = {
      kind           = strcontains(var.legacy_management_cluster.endpoint, "connectgateway.googleapis.com") ? "connect-gateway" : "gke"
      endpoint       = var.legacy_management_cluster.endpoint
      ca_certificate = var.legacy_management_cluster.ca_certificate
      project        = var.legacy_management_cluster.project_id
      location       = null
      cluster_name   = null
      membership     = null
      namespaces     = var.legacy_management_cluster.namespaces
      cluster_wide   = var.legacy_management_cluster.cluster_wide_rbac
    }
    }) : tomap({
    for name, cluster in var.management_clusters : name => {
      kind           = cluster.kind
      endpoint       = cluster.endpoint
      ca_certificate = cluster.ca_certificate
      project        = cluster.project
      location       = cluster.location
      cluster_name   = cluster.cluster_name
      membership     = cluster.membership
      # Namespaces (clusters-{id}) do not exist when Terraform runs: cluster-wide unless listed.
      namespaces   = coalesce(cluster.namespaces, [])
      cluster_wide = cluster.namespaces == null
    }
  })

  default_name = (local.legacy ? local.legacy_name
    : var.default_management_cluster != null ? var.default_management_cluster
    : length(var.management_clusters) == 1 ? one(keys(var.management_clusters))
  : null)

  # The list in the job's form (gke: endpoint + caCert; connect-gateway: endpoint only), as JSON.
  clusters_json = jsonencode({
    for name, cluster in var.management_clusters : name => {
      for key, value in { endpoint = cluster.endpoint, caCert = cluster.ca_certificate } : key => value if value != null
    }
  })

  # Where the job finds that JSON: a Cloud Storage object the parent module writes and the job
  # mounts read-only (management-clusters-file.tf). Always the file, at any fleet size: a Cloud Run
  # variable holds 32 KiB, about 15-20 GKE clusters with their CAs, and a deployment that changed
  # form when the fleet crossed that line would change the job, add a bucket and a grant in the
  # middle of growth; one form is also the one the local stack and every e2e test exercise
  # (docs/management-clusters.md, "Sizing").
  file_mount_dir = "/etc/hyperfleet/management-clusters"
  file_object    = "management-clusters.json"
  clusters_file = local.legacy ? null : {
    content   = local.clusters_json
    object    = local.file_object
    mount_dir = local.file_mount_dir
    path      = "${local.file_mount_dir}/${local.file_object}"
  }

  # The job's configuration (functions/pull-secret-job/config/config.ts): the deprecated variable keeps
  # today's single-cluster variables, so upgrading plans no change to the job; the map becomes
  # MANAGEMENT_CLUSTERS_FILE, the mounted file above. DEFAULT_MANAGEMENT_CLUSTER is set whenever
  # there is one (the only cluster, or the chosen default): the reporter names an execution's
  # cluster from it and never reads the file.
  job_env = local.legacy ? merge(
    { MANAGEMENT_CLUSTER_ENDPOINT = var.legacy_management_cluster.endpoint },
    var.legacy_management_cluster.ca_certificate == null ? {} : { MANAGEMENT_CLUSTER_CA_CERT = var.legacy_management_cluster.ca_certificate },
    var.default_management_cluster == null ? {} : { DEFAULT_MANAGEMENT_CLUSTER = var.default_management_cluster },
    ) : merge(
    { MANAGEMENT_CLUSTERS_FILE = local.clusters_file.path },
    local.default_name == null ? {} : { DEFAULT_MANAGEMENT_CLUSTER = local.default_name },
  )

  # What the job's Google identity needs to reach each kind of cluster with its access token,
  # granted on `project` (docs/management-clusters.md, "Reaching a management cluster"). GKE, in
  # every mode, authorizes a request with IAM and Kubernetes RBAC together: the roles below carry no
  # container.secrets.* (or other Kubernetes object) permission, so what the job may do inside a
  # cluster is RBAC's and the admission fence's decision alone.
  #
  # - gke: roles/container.clusterViewer, "Kubernetes Engine Cluster Viewer" (container.clusters.get,
  #   .list, .connect; resourcemanager.projects.get, .list):
  #   - container.clusters.get: GKE lets a Google identity authenticate to a cluster only if it
  #     holds this permission on the cluster's project (it authorizes nothing inside the cluster):
  #     https://cloud.google.com/kubernetes-engine/docs/how-to/role-based-access-control and
  #     https://cloud.google.com/kubernetes-engine/docs/how-to/iam;
  #   - container.clusters.connect: the DNS-based endpoint (https://*.gke.goog) checks it before a
  #     request reaches the control plane, for private control planes too:
  #     https://cloud.google.com/kubernetes-engine/docs/concepts/network-isolation#dns-based_endpoint
  #   Role contents: https://cloud.google.com/iam/docs/understanding-roles#kubernetes-engine-roles
  #   (https://cloud.google.com/iam/docs/roles-permissions/container). It is the least predefined
  #   role with both permissions and the one the single-cluster module always granted; a custom role
  #   with clusters.get and .connect only would have to be created in every cluster project (and
  #   iam.roles.create there) just to drop clusters.list.
  # - connect-gateway: roles/gkehub.gatewayEditor, "Connect Gateway Editor" (gkehub.gateway.get,
  #   .post, .put, .patch, .delete; gkehub.memberships.get; serviceusage.services.get): the job GETs,
  #   POSTs, merge-PATCHes and DELETEs Secrets through the gateway, each HTTP method checked as its
  #   gkehub.gateway.* permission (the Reader role holds get only, the Admin role adds stream and
  #   generateCredentials, which the job never uses), and reading the membership the URL names is
  #   gkehub.memberships.get, in the same role. No roles/gkehub.viewer (Fleet Viewer): Google's
  #   setup guide asks for it so that users can fetch a kubeconfig with `gcloud container fleet
  #   memberships get-credentials`; the job is given the gateway URL and fetches none.
  #   https://cloud.google.com/kubernetes-engine/enterprise/multicluster-management/gateway/setup
  #   (https://cloud.google.com/iam/docs/roles-permissions/gkehub). Only gkeMemberships (GKE
  #   clusters registered to the fleet) are accepted: for them the gateway passes the caller's own
  #   Google identity on to GKE, so no Connect Agent impersonation RBAC is rendered.
  # From the one source of runtime grants (terraform/modules/runtime-grants.json).
  runtime_grants = jsondecode(file("${path.module}/../../../runtime-grants.json")).grants
  roles_by_kind = {
    gke             = [local.runtime_grants["job-sees-gke-clusters"].role]
    connect-gateway = [local.runtime_grants["job-reaches-gateway-clusters"].role]
  }

  # The APIs Connect Gateway needs in the fleet host project of each connect-gateway cluster (the
  # setup guide enables connectgateway.googleapis.com "and its required dependency APIs"; of those,
  # GKE Hub serves the fleet memberships the gateway resolves; gkeconnect.googleapis.com is the
  # Connect Agent's, which GKE memberships do not use). Enabled only when such a cluster exists;
  # with the deprecated variable, for its gateway URL's project.
  gateway_services = ["connectgateway.googleapis.com", "gkehub.googleapis.com"]
  gateway_projects = distinct([for cluster in values(local.clusters) : cluster.project if cluster.kind == "connect-gateway"])
  gateway_apis = {
    for pair in setproduct(local.gateway_projects, local.gateway_services) : "${pair[0]}/${pair[1]}" => {
      project  = pair[0]
      service  = pair[1]
      clusters = sort([for name, cluster in local.clusters : name if cluster.kind == "connect-gateway" && cluster.project == pair[0]])
    }
  }

  # One grant per (project, role): two clusters in one project share it, so removing one cluster
  # from the map never revokes what the other still needs.
  grant_list = flatten([
    for name, cluster in var.management_clusters : [
      for role in local.roles_by_kind[cluster.kind] : { key = "${cluster.project}/${role}", project = cluster.project, role = role, cluster = name }
    ]
  ])
  project_grants = {
    for key, grants in { for grant in local.grant_list : grant.key => grant... } : key => {
      project  = grants[0].project
      role     = grants[0].role
      clusters = sort([for grant in grants : grant.cluster])
    }
  }

  credentials_command = {
    for name, cluster in local.clusters : name => (
      cluster.cluster_name != null ? "gcloud container clusters get-credentials ${cluster.cluster_name} --location ${cluster.location} --project ${cluster.project}"
      : cluster.membership != null ? "gcloud container fleet memberships get-credentials ${cluster.membership} --location ${cluster.location} --project ${cluster.project}"
      : "kubectl config use-context THE-MANAGEMENT-CLUSTER"
    )
  }

  # The fence template's variables: the job's identity and the layout's namespace rule.
  fence_variables = {
    job_identity    = var.job_identity
    namespace_rule  = module.namespace_layout.fence_namespace_rule
    namespace_words = module.namespace_layout.fence_namespace_words
  }

  # The fence as objects (kubernetes_manifest), parsed exactly as pullsecret-cluster-rbac parses it:
  # the template holds two YAML documents and yamldecode reads one at a time.
  fence_documents = [
    for document in split("\n---\n", templatefile("${path.module}/../../../pullsecret-cluster-rbac/templates/management-cluster-fence.yaml.tftpl", local.fence_variables)) : yamldecode(document)
  ]

  # Per cluster: the job's RBAC and the admission fence narrowing it, one multi-document YAML. The
  # RBAC template's variables are exactly these five (the local stack renders the same file with
  # its own renderer, emulators/common/terraform-template.ts: plain ${var}, %{ if }, %{ for } only).
  rbac = {
    # The fence first (and the output `fence` to apply it alone before, since kubectl goes on after
    # an object fails): the binding never exists without it (a
    # failed fence apply, e.g. on Kubernetes < 1.30, stops before any right is granted).
    for name, cluster in local.clusters : name => join("\n---\n", [
      trimspace(templatefile("${path.module}/../../../pullsecret-cluster-rbac/templates/management-cluster-fence.yaml.tftpl", local.fence_variables)),
      trimspace(templatefile("${path.module}/../../../pullsecret-cluster-rbac/templates/management-cluster-rbac.yaml.tftpl", {
        cluster             = name
        credentials_command = local.credentials_command[name]
        job_service_account = var.job_identity
        namespaces          = cluster.namespaces
        cluster_wide        = cluster.cluster_wide
      })),
    ])
  }
}

# The deprecated variable still works (same IAM, same RBAC, same job env) but warns on every plan.
check "management_cluster_deprecated" {
  assert {
    condition     = !local.legacy
    error_message = "management_cluster is deprecated: move it into management_clusters = { NAME = { kind = \"gke\" | \"connect-gateway\", endpoint, ca_certificate, project, location, cluster_name | membership } } (docs/management-clusters.md, \"Configuring them in Terraform\")."
  }
}

module "namespace_layout" {
  source = "../../../pullsecret-namespace-layout"

  template  = var.namespace_layout.template
  migration = var.namespace_layout.migration
}
