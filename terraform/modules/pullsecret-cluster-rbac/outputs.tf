output "cluster_role" {
  description = "Name of the ClusterRole the job is bound to."
  value       = kubernetes_cluster_role_v1.writer.metadata[0].name
}

output "bound_namespaces" {
  description = "Namespaces with a RoleBinding, or [\"*\"] when bound cluster-wide."
  value       = var.cluster_wide ? ["*"] : sort(keys(kubernetes_role_binding_v1.writer))
}

output "fence" {
  description = "Names of the ValidatingAdmissionPolicy and its binding, or null without the fence."
  value = var.fence ? {
    policy  = kubernetes_manifest.fence_policy[0].manifest.metadata.name
    binding = kubernetes_manifest.fence_binding[0].manifest.metadata.name
  } : null
}
