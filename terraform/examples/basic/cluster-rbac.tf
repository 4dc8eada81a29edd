# The cluster side (manage_cluster_rbac = true): the job's RBAC and its admission fence in the
# management clusters, applied by Terraform through kubernetes providers authenticated with the
# caller's Google access token. With false (the default) nothing here touches a cluster and the
# module's management_cluster_rbac output (one YAML per cluster) is applied with kubectl instead.
#
# Terraform cannot create a provider per map entry, so each cluster is one provider block and one
# module call. This example wires the first GKE cluster and the first Connect Gateway cluster of
# management_clusters (by name); copy a provider block (new alias) and its module call per further
# cluster, naming it instead of the "first of its kind".

data "google_client_config" "current" {}

locals {
  clusters = module.pullsecret_adapter.management_clusters
  rbac     = module.pullsecret_adapter.management_cluster_rbac_inputs
  gke_cluster = try(sort([
    for name, cluster in local.clusters : name if cluster.kind == "gke"
  ])[0], null)
  connect_gateway_cluster = try(sort([
    for name, cluster in local.clusters : name if cluster.kind == "connect-gateway"
  ])[0], null)
}

# A GKE control plane: its IP endpoint with the cluster CA (base64 PEM as GKE gives it, or PEM), or
# its DNS-based endpoint (https://*.gke.goog) with none, since it serves a publicly trusted
# certificate. The caller needs container.clusters.get (and .connect for the DNS endpoint) on the
# cluster's project, and RBAC there to create RBAC objects and admission policies.
provider "kubernetes" {
  alias = "gke"
  host  = try(local.clusters[local.gke_cluster].endpoint, null)
  cluster_ca_certificate = try(
    startswith(local.clusters[local.gke_cluster].ca_certificate, "-----BEGIN") ? local.clusters[local.gke_cluster].ca_certificate : base64decode(local.clusters[local.gke_cluster].ca_certificate),
    null,
  )
  token = data.google_client_config.current.access_token
}

# Connect Gateway: the gateway URL (a public CA, so no cluster_ca_certificate); the caller needs
# roles/gkehub.gatewayEditor (or Admin) on the fleet host project and RBAC in the cluster to create
# RBAC objects and admission policies.
provider "kubernetes" {
  alias = "connect_gateway"
  host  = try(local.clusters[local.connect_gateway_cluster].endpoint, null)
  token = data.google_client_config.current.access_token
}

module "gke_cluster_rbac" {
  source = "../../modules/pullsecret-cluster-rbac"
  # At most one instance (a provider serves one cluster), keyed by the cluster's name.
  for_each = var.manage_cluster_rbac ? { for name, inputs in local.rbac : name => inputs if name == local.gke_cluster } : {}
  providers = {
    kubernetes = kubernetes.gke
  }

  job_service_account = each.value.job_service_account
  namespaces          = each.value.namespaces
  cluster_wide        = each.value.cluster_wide
  namespace_layout    = each.value.namespace_layout
}

module "connect_gateway_cluster_rbac" {
  source   = "../../modules/pullsecret-cluster-rbac"
  for_each = var.manage_cluster_rbac ? { for name, inputs in local.rbac : name => inputs if name == local.connect_gateway_cluster } : {}
  providers = {
    kubernetes = kubernetes.connect_gateway
  }

  job_service_account = each.value.job_service_account
  namespaces          = each.value.namespaces
  cluster_wide        = each.value.cluster_wide
  namespace_layout    = each.value.namespace_layout
}
