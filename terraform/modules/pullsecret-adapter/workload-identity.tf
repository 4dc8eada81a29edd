locals {
  # The pools belong to the management cluster's project: GKE's pool is PROJECT.svc.id.goog of
  # the cluster's project, and the federation pool sits next to the cluster it trusts. With several
  # management clusters, the default one's project (cluster-access.tf, management_project).
  gke_pool_project = coalesce(var.workload_identity.gke_workload_pool_project, local.management_project)
  federation       = var.workload_identity.federation

  # The GKE management clusters in the pool's project, whose Workload Identity the plan checks when
  # there are reader bindings (modules/gke-workload-identity): the pool exists only once such a
  # cluster has it, and HyperShift's service accounts there need it to use the bindings.
  gke_pool_clusters = length(var.workload_identity.reader_bindings) == 0 ? {} : {
    for name, cluster in module.management_clusters.clusters : name => {
      project      = cluster.project
      location     = cluster.location
      cluster_name = cluster.cluster_name
    } if cluster.kind == "gke" && cluster.cluster_name != null && cluster.project == local.gke_pool_project
  }
}

# A warning at plan, never an error (a check block): see modules/gke-workload-identity/main.tf.
module "gke_workload_identity" {
  source   = "./modules/gke-workload-identity"
  for_each = local.gke_pool_clusters
  name     = each.key
  cluster  = each.value
}

# GKE Workload Identity: HyperShift's Kubernetes service accounts act as the read-only reader. The
# pool PROJECT.svc.id.goog must exist (a cluster of that project with Workload Identity enabled):
# otherwise IAM refuses these with "Identity Pool does not exist"; the plan warns first (above).
resource "google_service_account_iam_member" "reader_workload_identity" {
  for_each           = var.workload_identity.reader_bindings
  service_account_id = google_service_account.reader.name
  role               = "roles/iam.workloadIdentityUser"
  member             = "serviceAccount:${local.gke_pool_project}.svc.id.goog[${each.value.namespace}/${each.value.service_account}]"
}

# A management cluster outside GKE: its service account tokens are trusted through a
# Workload Identity Federation pool, and the same namespace/KSA pairs may act as the reader.
resource "google_iam_workload_identity_pool" "management" {
  count                     = local.federation == null ? 0 : 1
  project                   = local.management_project
  workload_identity_pool_id = local.federation.pool_id
  display_name              = "HyperFleet management cluster"
  description               = "Kubernetes service accounts of the management cluster."
}

resource "google_iam_workload_identity_pool_provider" "management" {
  count                              = local.federation == null ? 0 : 1
  project                            = local.management_project
  workload_identity_pool_id          = google_iam_workload_identity_pool.management[0].workload_identity_pool_id
  workload_identity_pool_provider_id = local.federation.provider_id
  display_name                       = "Management cluster OIDC"
  attribute_mapping = {
    "google.subject" = "assertion.sub"
  }
  oidc {
    issuer_uri        = local.federation.issuer_uri
    allowed_audiences = local.federation.allowed_audiences
  }
}

resource "google_service_account_iam_member" "reader_federation" {
  for_each           = local.federation == null ? {} : var.workload_identity.reader_bindings
  service_account_id = google_service_account.reader.name
  role               = "roles/iam.workloadIdentityUser"
  member             = "principal://iam.googleapis.com/${google_iam_workload_identity_pool.management[0].name}/subject/system:serviceaccount:${each.value.namespace}:${each.value.service_account}"
}
