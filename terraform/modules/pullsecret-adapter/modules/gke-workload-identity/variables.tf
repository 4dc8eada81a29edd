variable "name" {
  description = "The management cluster's name in management_clusters (for the message)."
  type        = string
  nullable    = false
}

variable "cluster" {
  description = "The GKE cluster: project (the Workload Identity pool's, PROJECT.svc.id.goog), location and cluster_name."
  type = object({
    project      = string
    location     = string
    cluster_name = string
  })
  nullable = false
}
