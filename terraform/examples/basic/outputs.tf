output "adapter_url" {
  description = "The adapter function's URL."
  value       = module.pullsecret_adapter.adapter_url
}

output "functions_repository" {
  description = "The Artifact Registry repository of the functions' images (written by their builds)."
  value       = module.pullsecret_adapter.functions_repository
}

output "tenant_access" {
  description = "The identities customer projects grant (modules/pullsecret-tenant-project identities): job, reporter, reader."
  value       = module.pullsecret_adapter.tenant_access
}

output "job_name" {
  description = "The pull secret job."
  value       = module.pullsecret_adapter.job_name
}

output "launch_queue" {
  description = "The launch queue (id, name, location): pause launches with gcloud tasks queues pause NAME --location LOCATION, resume with gcloud tasks queues resume."
  value       = module.pullsecret_adapter.launch_queue
}

output "management_cluster_fence" {
  description = "The admission fence for the job's identity, the same for every management cluster; apply it first and alone: terraform output -raw management_cluster_fence | kubectl apply -f -"
  value       = module.pullsecret_adapter.management_cluster_fence
}

output "management_cluster_rbac" {
  description = "Per management cluster, the job's RBAC and admission fence; apply each to its cluster: terraform output -json management_cluster_rbac | jq -r '.[\"NAME\"]' | kubectl apply -f -"
  value       = module.pullsecret_adapter.management_cluster_rbac
}

output "management_clusters" {
  description = "The management clusters by name, each with the gcloud command that points kubectl at it."
  value       = { for name, cluster in module.pullsecret_adapter.management_clusters : name => cluster.credentials_command }
}

output "reporter_url" {
  description = "The reporter function's URL."
  value       = module.pullsecret_adapter.reporter_url
}

output "service_accounts" {
  description = "Service account emails by role."
  value       = module.pullsecret_adapter.service_accounts
}

output "topics" {
  description = "Topics the system uses."
  value       = module.pullsecret_adapter.topics
}

output "fleet_requests_topic" {
  description = "The fleet-requests topic: `npm run -s fleet -- resync ... --topic $(terraform output -raw fleet_requests_topic)`."
  value       = module.pullsecret_adapter.fleet_requests_topic
}

output "default_pull_secret_notifications_command" {
  description = "Run once: makes the default pull secret notify the fleet-requests topic, so a new version rotates the fleet (docs/deployment.md)."
  value       = module.pullsecret_adapter.default_pull_secret_notifications_command
}
