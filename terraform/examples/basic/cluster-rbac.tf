# The cluster side (manage_cluster_rbac = true): the job's RBAC in the management cluster, applied
# by Terraform with a kubernetes provider configured from the cluster's endpoint and CA and the
# caller's Google access token. With false (the default) nothing here touches the cluster and the
# module's management_cluster_rbac output is applied with kubectl instead.
#
# One provider and one module call per management cluster: Terraform cannot create providers per
# map entry. For a second cluster, copy the provider block with an alias and the module call.

data "google_client_config" "current" {}

provider "kubernetes" {
  host                   = var.management_cluster.endpoint
  cluster_ca_certificate = var.management_cluster.ca_certificate == null ? null : base64decode(var.management_cluster.ca_certificate)
  token                  = data.google_client_config.current.access_token
}

module "management_cluster_rbac" {
  source = "../../modules/pullsecret-cluster-rbac"
  count  = var.manage_cluster_rbac ? 1 : 0
  providers = {
    kubernetes = kubernetes
  }

  job_service_account = module.pullsecret_adapter.management_cluster_rbac_inputs.job_service_account
  namespaces          = module.pullsecret_adapter.management_cluster_rbac_inputs.namespaces
  cluster_wide        = module.pullsecret_adapter.management_cluster_rbac_inputs.cluster_wide
}
