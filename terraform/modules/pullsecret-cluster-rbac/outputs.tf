output "cluster_role" {
  description = "Name of the ClusterRole the job is bound to."
  value       = kubernetes_cluster_role_v1.writer.metadata[0].name
}

output "bound_namespaces" {
  description = "Namespaces with a RoleBinding, or [\"*\"] when bound cluster-wide."
  value       = var.cluster_wide ? ["*"] : sort(keys(kubernetes_role_binding_v1.writer))
}
