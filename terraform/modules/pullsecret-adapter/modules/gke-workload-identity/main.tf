# GKE Workload Identity's pool, PROJECT.svc.id.goog, exists only once a cluster of that project has
# Workload Identity enabled (--workload-pool=PROJECT.svc.id.goog,
# https://cloud.google.com/kubernetes-engine/docs/how-to/workload-identity). Until then IAM refuses
# every binding naming it: "Error 400: Identity Pool does not exist (PROJECT.svc.id.goog)"
# (terraform-google-modules/terraform-google-kubernetes-engine #916; googleforgames/
# global-multiplayer-demo #39: "Only seems to happen on a project that has never created a Workload
# Identity Pool before", fixed there by a second apply). And HyperShift's service accounts on a
# cluster without it could not use a binding anyway.
#
# Read in a check block: a warning at plan, on the cluster that lacks it, never an error, so a
# destroy after the cluster's deletion is not blocked by this read (its failure is a warning too;
# see ../../prerequisites.tf for why a failing read must not stop a destroy). The caller creates one
# instance per GKE management cluster in the pool's project, only when there are reader bindings
# (a check block's data source can have no count of its own).
check "workload_identity" {
  data "google_container_cluster" "management" {
    project  = var.cluster.project
    location = var.cluster.location
    name     = var.cluster.cluster_name
  }

  assert {
    condition     = try(data.google_container_cluster.management.workload_identity_config[0].workload_pool, "") == "${var.cluster.project}.svc.id.goog"
    error_message = "Management cluster ${var.name} (${var.cluster.cluster_name} in ${var.cluster.project}, ${var.cluster.location}) does not have GKE Workload Identity enabled (workload pool ${jsonencode(try(data.google_container_cluster.management.workload_identity_config[0].workload_pool, null))}, not ${var.cluster.project}.svc.id.goog). Without it in the project the reader bindings (workload_identity.reader_bindings) fail with \"Identity Pool does not exist (${var.cluster.project}.svc.id.goog)\", and HyperShift's service accounts on this cluster could not use them. Enable it: gcloud container clusters update ${var.cluster.cluster_name} --location ${var.cluster.location} --project ${var.cluster.project} --workload-pool=${var.cluster.project}.svc.id.goog (docs/deployment.md, \"Deployment\", rights outside the platform project)."
  }
}
