locals {
  connect_gateway = strcontains(var.management_cluster.endpoint, "connectgateway.googleapis.com")

  # Kubernetes RBAC for the job's Google service account: write Secrets in the management
  # namespaces (or everywhere). Apply it with kubectl; see README, Deployment.
  management_cluster_rbac = templatefile("${path.module}/templates/management-cluster-rbac.yaml.tftpl", {
    job_service_account = google_service_account.job.email
    namespaces          = var.management_cluster.namespaces
    cluster_wide        = var.management_cluster.cluster_wide_rbac
  })
}

# Authenticating to the GKE control plane with IAM needs at least cluster viewer.
resource "google_project_iam_member" "job_cluster_viewer" {
  project = var.management_cluster.project_id
  role    = "roles/container.clusterViewer"
  member  = "serviceAccount:${google_service_account.job.email}"
}

# Through Connect Gateway, requests also need the gateway role (RBAC still decides what is allowed).
resource "google_project_iam_member" "job_connect_gateway" {
  count   = local.connect_gateway ? 1 : 0
  project = var.management_cluster.project_id
  role    = "roles/gkehub.gatewayEditor"
  member  = "serviceAccount:${google_service_account.job.email}"
}
