# The job's access to the management clusters: normalised, validated and rendered by the pure
# module management-clusters (evaluated offline by the tests); the grants are made here.
module "management_clusters" {
  source = "./modules/management-clusters"

  management_clusters        = var.management_clusters
  default_management_cluster = var.default_management_cluster
  legacy_management_cluster  = var.management_cluster
  job_identity               = local.job_identity
  namespace_layout           = var.management_namespace
}

# The operator's namespace layout: the adapter's and the job's environment, and the fence's rule.
module "namespace_layout" {
  source = "../pullsecret-namespace-layout"

  template  = var.management_namespace.template
  migration = var.management_namespace.migration
}

locals {
  # The job's Google service account email, known at plan time (google_service_account.job.email
  # is not, on the first apply), so the RBAC, the fence and kubernetes_manifest can use it at once.
  # A user-managed service account's email is always ACCOUNT_ID@PROJECT_ID.iam.gserviceaccount.com.
  job_identity = "${var.name_prefix}-job@${var.project_id}.iam.gserviceaccount.com"

  # Per cluster name: the job's RBAC and the admission fence, one YAML each for kubectl apply.
  management_cluster_rbac = module.management_clusters.rbac

  # The project of the default management cluster (or, with several and no default, the first by
  # name): where the Workload Identity pools of workload-identity.tf live unless given.
  # (null only when no cluster is configured, which the module's precondition already reports).
  management_project = try(module.management_clusters.clusters[coalesce(
    module.management_clusters.default_management_cluster,
    sort(keys(module.management_clusters.clusters))[0],
  )].project, null)

  legacy_connect_gateway = var.management_cluster == null ? false : strcontains(var.management_cluster.endpoint, "connectgateway.googleapis.com")
}

# Connect Gateway's APIs (connectgateway, gkehub) in the fleet host project of each connect-gateway
# cluster, only when there is one (modules/management-clusters/main.tf, gateway_apis; setup guide:
# https://cloud.google.com/kubernetes-engine/enterprise/multicluster-management/gateway/setup).
# Left enabled on destroy, like the platform project's APIs: other users of the fleet need them.
resource "google_project_service" "connect_gateway" {
  for_each           = { for key, api in module.management_clusters.gateway_apis : key => api if var.enable_apis }
  project            = each.value.project
  service            = each.value.service
  disable_on_destroy = false
}

# management_clusters: one grant per (project, role) the clusters need - gke: Kubernetes Engine
# Cluster Viewer on the cluster's project (container.clusters.get to authenticate, .connect for the
# DNS-based endpoint; https://cloud.google.com/kubernetes-engine/docs/how-to/iam); connect-gateway:
# Connect Gateway Editor on the fleet host project (gkehub.gateway.get/post/put/patch/delete and
# gkehub.memberships.get; https://cloud.google.com/kubernetes-engine/enterprise/multicluster-management/gateway/setup).
# Why each, and why no other: modules/management-clusters/main.tf, roles_by_kind.
resource "google_project_iam_member" "job_management_cluster" {
  for_each = module.management_clusters.project_grants
  project  = each.value.project
  role     = each.value.role
  member   = "serviceAccount:${google_service_account.job.email}"

  depends_on = [google_project_service.connect_gateway]
}

# The deprecated management_cluster keeps its two grants at their addresses (count adds [0] to the
# first one, which Terraform moves by itself; the moved block says so), so upgrading with the old
# variable plans no IAM change.
# Kubernetes Engine Cluster Viewer (container.clusters.get, .connect) on the cluster's project. For
# a Connect Gateway URL too, as before (the gateway does not need it; kept so that upgrading with
# the deprecated variable plans no IAM change).
resource "google_project_iam_member" "job_cluster_viewer" {
  count   = var.management_cluster == null ? 0 : 1
  project = var.management_cluster.project_id
  role    = local.grant["job-sees-gke-clusters"].role
  member  = "serviceAccount:${google_service_account.job.email}"
}

moved {
  from = google_project_iam_member.job_cluster_viewer
  to   = google_project_iam_member.job_cluster_viewer[0]
}

# Connect Gateway Editor (gkehub.gateway.get/post/put/patch/delete, gkehub.memberships.get) on the
# fleet host project, as for a connect-gateway entry of management_clusters.
resource "google_project_iam_member" "job_connect_gateway" {
  count   = local.legacy_connect_gateway ? 1 : 0
  project = var.management_cluster.project_id
  role    = local.grant["job-reaches-gateway-clusters"].role
  member  = "serviceAccount:${google_service_account.job.email}"

  depends_on = [google_project_service.connect_gateway]
}
