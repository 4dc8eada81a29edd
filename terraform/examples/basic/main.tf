module "pullsecret_adapter" {
  source = "../../modules/pullsecret-adapter"

  project_id                  = var.project_id
  region                      = var.region
  name_prefix                 = var.name_prefix
  sentinel_topic              = var.sentinel_topic
  hyperfleet_api              = var.hyperfleet_api
  job                         = var.job
  management_clusters         = var.management_clusters
  default_management_cluster  = var.default_management_cluster
  management_cluster          = var.management_cluster # deprecated
  function_source_archives    = var.function_source_archives
  default_pull_secret_version = var.default_pull_secret_version
  workload_identity           = var.workload_identity
  alert_notification_channels = var.alert_notification_channels
  labels                      = var.labels
  delivery                    = var.delivery
  network                     = var.network
  tracing_enabled             = var.tracing_enabled
  tracing_sampler_ratio       = var.tracing_sampler_ratio
}

# Customer projects: the job's, the reporter's and the reader's rights on hyperfleet-* secrets, one
# conditional binding each per project (docs/deployment.md, "Onboarding a customer project"). Listed here for a
# handful of projects; at fleet scale the project factory that creates customer projects applies
# modules/pullsecret-tenant-project (or one call per folder), and this list stays empty.
#
# With organization_id, the job's custom role is created once for the organization
# (modules/pullsecret-tenant-role) and only granted per project; without, each project gets its own
# project-level role.
module "tenant_role" {
  source          = "../../modules/pullsecret-tenant-role"
  count           = var.organization_id == null ? 0 : 1
  organization_id = var.organization_id
  name_prefix     = var.name_prefix
}

module "tenant_project" {
  source      = "../../modules/pullsecret-tenant-project"
  for_each    = toset(var.target_project_ids)
  scope       = { project = each.key }
  identities  = module.pullsecret_adapter.tenant_access
  role_id     = try(module.tenant_role[0].role_id, null)
  name_prefix = var.name_prefix
}
