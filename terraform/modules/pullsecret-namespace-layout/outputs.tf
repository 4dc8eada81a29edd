output "env" {
  description = "The layout as the adapter's and the job's environment: MANAGEMENT_NAMESPACE_TEMPLATE, and during a migration PREVIOUS_MANAGEMENT_NAMESPACE_TEMPLATE and NAMESPACE_MIGRATION_PHASE."
  value = merge(
    { MANAGEMENT_NAMESPACE_TEMPLATE = var.template },
    var.migration == null ? {} : {
      PREVIOUS_MANAGEMENT_NAMESPACE_TEMPLATE = var.migration.previous
      NAMESPACE_MIGRATION_PHASE              = var.migration.phase
    },
  )
}

output "fence_namespace_rule" {
  description = "The admission fence's namespace rule (CEL): the current layout's namespace for the Secret's cluster-id, and during a migration the previous layout's for a DELETE or a dry run (the job reads its Secret with a dry-run patch before removing it)."
  value = join("", [
    "request.namespace == ${local.cel_namespace.current}",
    var.migration == null ? "" : " || ((request.operation == 'DELETE' || request.dryRun) && request.namespace == ${local.cel_namespace.previous})",
  ])
}

output "fence_namespace_words" {
  description = "Where the fence lets the job write, in words for its denial message."
  value       = var.migration == null ? local.words.current : "${local.words.current} (or, to read or delete it, ${local.words.previous})"
}

output "shared" {
  description = "true when every cluster's pull secret goes to one namespace (no {id} in template): a RoleBinding in that namespace can replace the cluster-wide binding."
  value       = !strcontains(var.template, "{id}")
}
