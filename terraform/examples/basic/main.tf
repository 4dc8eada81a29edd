module "pullsecret_adapter" {
  source = "../../modules/pullsecret-adapter"

  project_id                  = var.project_id
  region                      = var.region
  name_prefix                 = var.name_prefix
  sentinel_topic              = var.sentinel_topic
  target_project_ids          = var.target_project_ids
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
