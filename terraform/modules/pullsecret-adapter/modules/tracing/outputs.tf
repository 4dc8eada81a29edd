output "apis" {
  description = "Services tracing needs enabled on the platform project (empty when disabled)."
  value       = local.apis
}

output "roles" {
  description = "Roles each runtime identity (adapter, reporter, job) needs on the platform project to export spans (empty when disabled)."
  value       = local.roles
}

output "adapter_env" {
  description = "The adapter function's OTEL_* variables (empty when disabled)."
  value       = local.adapter_env
}

output "reporter_env" {
  description = "The reporter function's OTEL_* variables (empty when disabled)."
  value       = local.reporter_env
}

output "job_env" {
  description = "The job's OTEL_* variables (empty when disabled); the adapter adds TRACEPARENT per execution."
  value       = local.job_env
}
