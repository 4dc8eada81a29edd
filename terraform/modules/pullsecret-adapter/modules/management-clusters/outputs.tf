output "clusters" {
  description = "The management clusters in one shape (the deprecated variable as one entry)."
  value       = local.clusters
}

output "default_management_cluster" {
  description = "The cluster used when placement names none, or null when there are several and none is the default."
  value       = local.default_name
}

output "job_env" {
  description = "The job's management cluster variables: MANAGEMENT_CLUSTERS_FILE (the path of the mounted list, clusters_file) and DEFAULT_MANAGEMENT_CLUSTER (or, with the deprecated variable, today's MANAGEMENT_CLUSTER_ENDPOINT / _CA_CERT)."
  value       = local.job_env

  # Rules relating two variables (a validation block may only see its own variable before 1.9).
  precondition {
    condition     = local.legacy != (length(var.management_clusters) > 0)
    error_message = local.legacy ? "Set management_clusters or the deprecated management_cluster, not both: move management_cluster into management_clusters." : "Set management_clusters: at least one management cluster (name => { kind, endpoint, ... }) is needed."
  }
  precondition {
    condition     = local.legacy || var.default_management_cluster == null || contains(keys(var.management_clusters), coalesce(var.default_management_cluster, "-"))
    error_message = "default_management_cluster ${jsonencode(var.default_management_cluster)} is not one of management_clusters (${join(", ", sort(keys(var.management_clusters)))})."
  }
}

output "clusters_file" {
  description = "The list of management clusters as the job reads it from MANAGEMENT_CLUSTERS_FILE: { content (the JSON, MANAGEMENT_CLUSTERS' schema), object (its Cloud Storage object name), mount_dir (where the job mounts the bucket read-only), path (mount_dir/object) }; null with the deprecated variable."
  value       = local.clusters_file
}

output "project_grants" {
  description = "IAM grants for the job by \"PROJECT/ROLE\": { project, role, clusters }. Empty with the deprecated variable, whose grants keep their own resources."
  value       = local.project_grants
}

output "gateway_apis" {
  description = "The APIs Connect Gateway needs, by \"PROJECT/SERVICE\": { project, service, clusters } for each fleet host project of a connect-gateway cluster (connectgateway and gkehub); empty when there is none."
  value       = local.gateway_apis
}

output "rbac" {
  description = "Per cluster name: the job's ClusterRole, its binding(s) and the admission fence (ValidatingAdmissionPolicy + binding) as one multi-document YAML for kubectl apply."
  value       = local.rbac
}

output "credentials_commands" {
  description = "Per cluster name: how to point kubectl at it before applying its rbac."
  value       = local.credentials_command
}

output "fence" {
  description = "The admission fence for the job identity as one YAML (ValidatingAdmissionPolicy + binding), the same for every cluster: apply it, alone, before the RBAC."
  value       = trimspace(templatefile("${path.module}/../../../pullsecret-cluster-rbac/templates/management-cluster-fence.yaml.tftpl", local.fence_variables))
}

output "fence_manifests" {
  description = "The admission fence for the job identity as objects: the ValidatingAdmissionPolicy and its binding (what pullsecret-cluster-rbac applies with kubernetes_manifest)."
  value       = local.fence_documents
}
