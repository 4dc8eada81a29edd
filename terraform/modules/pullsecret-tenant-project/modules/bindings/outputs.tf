output "bindings" {
  description = "Per identity (job, reporter, reader): role, member, condition title and expression."
  value       = local.bindings
  precondition {
    # A project-level custom role can be granted only in its own project; a folder without role_id
    # arrives here as null (the caller has no role to pass), the same mistake.
    condition     = var.scope.project != null || startswith(coalesce(var.job_role, "-"), "organizations/")
    error_message = "scope.folder needs role_id: an organization custom role from the module pullsecret-tenant-role (a project-level role cannot be granted on a folder)."
  }
}

output "kind" {
  description = "project or folder: where the bindings are made."
  value       = var.scope.project != null ? "project" : "folder"
}
