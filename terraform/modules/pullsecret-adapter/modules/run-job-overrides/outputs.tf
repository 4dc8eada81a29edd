output "audit_filter" {
  description = "Cloud Logging filter: RunJob audit entries (Data Access, DATA_WRITE) on the job whose overrides go beyond allowed_names."
  value       = local.audit_filter
}

output "unexpected_name_regex" {
  description = "RE2 expression matching exactly the environment variable names not in allowed_names."
  value       = local.unexpected_name_regex
}
