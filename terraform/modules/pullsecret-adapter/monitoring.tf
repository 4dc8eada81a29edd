locals {
  metric_prefix = replace(var.name_prefix, "-", "_")
  # Log-based metrics read the structured logs: the job's result line and the functions' fields.
  job_log_filter      = "resource.type=\"cloud_run_job\" AND resource.labels.job_name=\"${local.job_name}\" AND jsonPayload.pullsecret_job_result.outcome:*"
  function_log_filter = "resource.type=\"cloud_run_revision\" AND (resource.labels.service_name=\"${var.name_prefix}-adapter\" OR resource.labels.service_name=\"${var.name_prefix}-reporter\")"
  monitoring          = var.monitoring.enabled ? { enabled = true } : {}
}

resource "google_logging_metric" "job_outcomes" {
  for_each = local.monitoring
  project  = var.project_id
  name     = "${local.metric_prefix}_job_outcomes"
  filter   = local.job_log_filter
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    display_name = "Pull secret job outcomes"
    labels {
      key         = "outcome"
      description = "succeeded or failed"
    }
    labels {
      key         = "reason"
      description = "PullSecretProvisioned, CleanupConfirmed or the failure reason"
    }
    labels {
      key         = "operation"
      description = "apply or delete"
    }
  }
  label_extractors = {
    outcome   = "EXTRACT(jsonPayload.pullsecret_job_result.outcome)"
    reason    = "EXTRACT(jsonPayload.pullsecret_job_result.reason)"
    operation = "EXTRACT(jsonPayload.pullsecret_job_result.operation)"
  }
  depends_on = [google_project_service.apis]
}

resource "google_logging_metric" "job_duration" {
  for_each        = local.monitoring
  project         = var.project_id
  name            = "${local.metric_prefix}_job_duration"
  filter          = local.job_log_filter
  value_extractor = "EXTRACT(jsonPayload.pullsecret_job_result.durations_ms.total)"
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "DISTRIBUTION"
    unit         = "ms"
    display_name = "Pull secret job duration"
  }
  bucket_options {
    exponential_buckets {
      num_finite_buckets = 32
      growth_factor      = 1.5
      scale              = 10
    }
  }
  depends_on = [google_project_service.apis]
}

resource "google_logging_metric" "adapter_decisions" {
  for_each = local.monitoring
  project  = var.project_id
  name     = "${local.metric_prefix}_adapter_decisions"
  filter   = "resource.type=\"cloud_run_revision\" AND resource.labels.service_name=\"${var.name_prefix}-adapter\" AND jsonPayload.metadata.decision:*"
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    display_name = "Adapter decisions"
    labels {
      key         = "decision"
      description = "launch-apply, launch-delete, up-to-date, in-flight, report-not-met, malformed, ..."
    }
  }
  label_extractors = {
    decision = "EXTRACT(jsonPayload.metadata.decision)"
  }
  depends_on = [google_project_service.apis]
}

resource "google_logging_metric" "status_writes" {
  for_each = local.monitoring
  project  = var.project_id
  name     = "${local.metric_prefix}_status_writes"
  filter   = "${local.function_log_filter} AND jsonPayload.metadata.status_write:*"
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    display_name = "HyperFleet status writes"
    labels {
      key         = "status_write"
      description = "stored or discarded"
    }
    labels {
      key         = "reason"
      description = "the Available condition's reason"
    }
  }
  label_extractors = {
    status_write = "EXTRACT(jsonPayload.metadata.status_write)"
    reason       = "EXTRACT(jsonPayload.metadata.reason)"
  }
  depends_on = [google_project_service.apis]
}

# A 404 that is not "cluster gone" (HYPERFLEET-NTF-000, or no HyperFleet problem body) means the
# functions call the wrong URL or API version. They log it at ERROR with this decision and nack the
# message, so Pub/Sub redelivers once the configuration is fixed; this counts it for the alert below.
resource "google_logging_metric" "hyperfleet_api_misconfigured" {
  for_each = local.monitoring
  project  = var.project_id
  name     = "${local.metric_prefix}_hyperfleet_api_misconfigured"
  filter   = "${local.function_log_filter} AND severity>=ERROR AND jsonPayload.metadata.decision=\"hyperfleet-api-misconfigured\""
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    display_name = "HyperFleet API configuration errors"
    labels {
      key         = "service"
      description = "the function that called a URL the API does not serve (adapter or reporter)"
    }
  }
  label_extractors = {
    service = "EXTRACT(resource.labels.service_name)"
  }
  depends_on = [google_project_service.apis]
}

# An event the functions acknowledged without processing because it exceeded the retry bound
# (EVENT_MAX_AGE or EVENT_MAX_FAILURES): logged at ERROR with this decision. Under Eventarc, without
# an attached dead-letter topic, this is the only trace such an event leaves.
resource "google_logging_metric" "retry_bound_exceeded" {
  for_each = local.monitoring
  project  = var.project_id
  name     = "${local.metric_prefix}_retry_bound_exceeded"
  filter   = "${local.function_log_filter} AND severity>=ERROR AND jsonPayload.metadata.decision=\"retry-bound-exceeded\""
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    display_name = "Events dropped after the retry bound"
    labels {
      key         = "service"
      description = "the function that gave up on the event (adapter or reporter)"
    }
  }
  label_extractors = {
    service = "EXTRACT(resource.labels.service_name)"
  }
  depends_on = [google_project_service.apis]
}

# A new log-based metric is not usable in an alert policy for a while after it is created. Cloud
# Monitoring refuses the policy with "Error 404: Cannot find metric(s) that match type = ... If a
# metric was created recently, it could take up to 10 minutes to become available. Please try
# again soon." (hashicorp/terraform-provider-google #11102, still so with v7.28); a PromQL condition
# likewise needs its metrics to exist when the policy is created
# (https://cloud.google.com/monitoring/promql/create-promql-alerts-console, "Before you begin").
# The provider does not retry that 404: google_monitoring_alert_policy's create retries only
# IsMonitoringConcurrentEditError (409) besides the global predicates (500/502/503, network and
# quota errors; a 429 aborts), v7.45.0 google/services/monitoring/resource_monitoring_alert_policy.go
# and google/transport/error_retry_predicates.go. Terraform has no retry of its own, so the only thing
# that works on the first apply is waiting out the bound the API states: 10 minutes by default
# (monitoring.metric_propagation_wait). time_sleep waits only when it is created (and again when a
# metric is replaced, which changes its triggers); the metrics come right after the APIs, so the
# wait mostly overlaps the function builds. Every alert policy on a log-based metric waits for it.
resource "time_sleep" "metrics_propagation" {
  for_each        = local.monitoring
  create_duration = var.monitoring.metric_propagation_wait
  triggers = {
    job_outcomes                 = google_logging_metric.job_outcomes[each.key].id
    job_duration                 = google_logging_metric.job_duration[each.key].id
    hyperfleet_api_misconfigured = google_logging_metric.hyperfleet_api_misconfigured[each.key].id
    retry_bound_exceeded         = google_logging_metric.retry_bound_exceeded[each.key].id
    unexpected_run_job_overrides = google_logging_metric.unexpected_run_job_overrides[each.key].id
    executions_ended_abnormally  = google_logging_metric.executions_ended_abnormally[each.key].id
    finished_entry_unreadable    = google_logging_metric.finished_entry_unreadable[each.key].id
    gcp_api_calls                = google_logging_metric.gcp_api_calls[each.key].id
    clusters_waiting_too_long    = google_logging_metric.clusters_waiting_too_long[each.key].id
    permanent_failures           = google_logging_metric.permanent_failures[each.key].id
    default_pull_secret_revoked  = google_logging_metric.default_pull_secret_revoked[each.key].id
    batch_tasks_with_failures    = google_logging_metric.batch_tasks_with_failures[each.key].id
  }
}

resource "google_monitoring_alert_policy" "retry_bound_exceeded" {
  for_each              = local.monitoring
  project               = var.project_id
  display_name          = "Pull secret functions dropped events after the retry bound"
  combiner              = "OR"
  notification_channels = var.alert_notification_channels
  conditions {
    display_name = "events acknowledged as retry-bound-exceeded"
    condition_threshold {
      filter          = "resource.type=\"cloud_run_revision\" AND metric.type=\"logging.googleapis.com/user/${google_logging_metric.retry_bound_exceeded["enabled"].name}\""
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "0s"
      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_SUM"
        cross_series_reducer = "REDUCE_SUM"
      }
    }
  }
  documentation {
    content   = "An event failed for longer than delivery.max_event_age (${coalesce(var.delivery.max_event_age, "adapter 30m, reporter 1h")}) or more than delivery.max_event_failures (${var.delivery.max_event_failures}) times and was acknowledged without being processed. The ERROR log line (jsonPayload.metadata.decision = retry-bound-exceeded) carries the reason and the cluster; the next Sentinel reconcile event or the resync reprocesses the cluster once the cause is fixed. See docs/operations.md, \"Troubleshooting\"."
    mime_type = "text/markdown"
  }
  depends_on = [google_project_service.apis, time_sleep.metrics_propagation]
}

resource "google_monitoring_alert_policy" "hyperfleet_api_misconfigured" {
  for_each              = local.monitoring
  project               = var.project_id
  display_name          = "Pull secret functions call a HyperFleet API URL that does not exist"
  combiner              = "OR"
  notification_channels = var.alert_notification_channels
  conditions {
    display_name = "HyperFleet API endpoint errors (404 that is not a missing cluster)"
    condition_threshold {
      filter          = "resource.type=\"cloud_run_revision\" AND metric.type=\"logging.googleapis.com/user/${google_logging_metric.hyperfleet_api_misconfigured["enabled"].name}\""
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "0s"
      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_SUM"
        cross_series_reducer = "REDUCE_SUM"
      }
    }
  }
  documentation {
    content   = "The adapter or the reporter got a 404 that does not mean \"cluster gone\" (HYPERFLEET-NTF-000 from the API's router, or a 404 without a HyperFleet problem body). Check HYPERFLEET_API_BASE_URL and HYPERFLEET_API_VERSION (the URL is in the ERROR log line, jsonPayload.metadata.url). Events are redelivered, not lost; see docs/operations.md, \"Troubleshooting\"."
    mime_type = "text/markdown"
  }
  depends_on = [google_project_service.apis, time_sleep.metrics_propagation]
}

resource "google_monitoring_alert_policy" "job_failure_rate" {
  for_each              = local.monitoring
  project               = var.project_id
  display_name          = "Pull secret job failure rate above ${var.monitoring.job_failure_ratio * 100}% (10 min)"
  combiner              = "OR"
  notification_channels = var.alert_notification_channels
  conditions {
    display_name = "failed / all executions over 10 minutes"
    condition_prometheus_query_language {
      query               = "sum(rate(logging_googleapis_com:user_${google_logging_metric.job_outcomes["enabled"].name}{outcome=\"failed\"}[10m])) / sum(rate(logging_googleapis_com:user_${google_logging_metric.job_outcomes["enabled"].name}[10m])) > ${var.monitoring.job_failure_ratio}"
      duration            = "0s"
      evaluation_interval = "60s"
    }
  }
  documentation {
    content   = "Pull secret executions are failing. Read the reason label and the job logs (jsonPayload.pullsecret_job_result.reason); see docs/operations.md, \"Troubleshooting\"."
    mime_type = "text/markdown"
  }
  depends_on = [google_project_service.apis, time_sleep.metrics_propagation]
}

resource "google_monitoring_alert_policy" "dead_letters" {
  for_each              = length(local.dead_letter_route) > 0 ? local.monitoring : {}
  project               = var.project_id
  display_name          = "Pull secret dead-letter topics are not empty"
  combiner              = "OR"
  notification_channels = var.alert_notification_channels
  conditions {
    display_name = "undelivered dead-lettered messages"
    condition_threshold {
      filter          = "resource.type=\"pubsub_subscription\" AND metric.type=\"pubsub.googleapis.com/subscription/num_undelivered_messages\" AND resource.labels.subscription_id=monitoring.regex.full_match(\"${var.name_prefix}-.*-dead-letter-inspect\")"
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "60s"
      aggregations {
        alignment_period   = "60s"
        per_series_aligner = "ALIGN_MAX"
      }
    }
  }
  documentation {
    content   = "Messages reached a dead-letter topic after ${var.delivery.max_delivery_attempts} delivery attempts. Pull them from the *-dead-letter-inspect subscriptions to see why; see docs/operations.md, \"Troubleshooting\"."
    mime_type = "text/markdown"
  }
  depends_on = [google_project_service.apis]
}

resource "google_monitoring_alert_policy" "job_duration" {
  for_each              = local.monitoring
  project               = var.project_id
  display_name          = "Pull secret job slower than ${var.monitoring.job_duration_seconds} s"
  combiner              = "OR"
  notification_channels = var.alert_notification_channels
  conditions {
    display_name = "p99 job duration"
    condition_threshold {
      filter          = "resource.type=\"cloud_run_job\" AND metric.type=\"logging.googleapis.com/user/${google_logging_metric.job_duration["enabled"].name}\""
      comparison      = "COMPARISON_GT"
      threshold_value = var.monitoring.job_duration_seconds * 1000
      duration        = "0s"
      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_PERCENTILE_99"
        cross_series_reducer = "REDUCE_MAX"
      }
    }
  }
  depends_on = [google_project_service.apis, time_sleep.metrics_propagation]
}

# The dashboard's JSON comes from the pure module modules/dashboard, which writes only keys the
# Monitoring API returns as sent, so the plan shows no perpetual change (its main.tf says why each
# key is in or out; test/unit/terraform/dashboard.test.ts renders it offline and checks).
module "dashboard" {
  source       = "./modules/dashboard"
  for_each     = local.monitoring
  display_name = "Pull Secret Adapter"
  tiles = [
    { title = "Job outcomes by reason", metric = google_logging_metric.job_outcomes[each.key].name, aligner = "ALIGN_RATE", reducer = "REDUCE_SUM", group_by = ["metric.label.outcome", "metric.label.reason"] },
    { title = "Job duration p99 (ms)", metric = google_logging_metric.job_duration[each.key].name, aligner = "ALIGN_PERCENTILE_99", reducer = "REDUCE_MAX" },
    { title = "Adapter decisions", metric = google_logging_metric.adapter_decisions[each.key].name, aligner = "ALIGN_RATE", reducer = "REDUCE_SUM", group_by = ["metric.label.decision"] },
    { title = "Status writes (stored / discarded)", metric = google_logging_metric.status_writes[each.key].name, aligner = "ALIGN_RATE", reducer = "REDUCE_SUM", group_by = ["metric.label.status_write"] },
    { title = "Events dropped after the retry bound", metric = google_logging_metric.retry_bound_exceeded[each.key].name, aligner = "ALIGN_RATE", reducer = "REDUCE_SUM", group_by = ["metric.label.service"] },
    { title = "Job failures by cluster", metric = google_logging_metric.job_failures[each.key].name, aligner = "ALIGN_RATE", reducer = "REDUCE_SUM", group_by = ["metric.label.cluster_id"] },
    { title = "Secret Manager calls by operation and status", metric = google_logging_metric.gcp_api_calls[each.key].name, aligner = "ALIGN_RATE", reducer = "REDUCE_SUM", group_by = ["metric.label.operation", "metric.label.status_code"] },
    { title = "Kubernetes API calls by operation and status", metric = google_logging_metric.k8s_api_calls[each.key].name, aligner = "ALIGN_RATE", reducer = "REDUCE_SUM", group_by = ["metric.label.operation", "metric.label.status_code"] },
    # Percentiles of the merged distributions (ALIGN_DELTA, then REDUCE_PERCENTILE_nn across series),
    # one line per operation and percentile; $${...} is the dashboard's own legend interpolation.
    { title = "Secret Manager latency p50 / p95 / p99 by operation (ms)", metric = google_logging_metric.gcp_api_duration[each.key].name, group_by = ["metric.label.operation"], series = [
      { aligner = "ALIGN_DELTA", reducer = "REDUCE_PERCENTILE_50", legend = "p50 $${metric.labels.operation}" },
      { aligner = "ALIGN_DELTA", reducer = "REDUCE_PERCENTILE_95", legend = "p95 $${metric.labels.operation}" },
      { aligner = "ALIGN_DELTA", reducer = "REDUCE_PERCENTILE_99", legend = "p99 $${metric.labels.operation}" },
    ] },
    { title = "Kubernetes API latency p50 / p95 / p99 by operation (ms)", metric = google_logging_metric.k8s_api_duration[each.key].name, group_by = ["metric.label.operation"], series = [
      { aligner = "ALIGN_DELTA", reducer = "REDUCE_PERCENTILE_50", legend = "p50 $${metric.labels.operation}" },
      { aligner = "ALIGN_DELTA", reducer = "REDUCE_PERCENTILE_95", legend = "p95 $${metric.labels.operation}" },
      { aligner = "ALIGN_DELTA", reducer = "REDUCE_PERCENTILE_99", legend = "p99 $${metric.labels.operation}" },
    ] },
    { title = "Secret versions created", metric = google_logging_metric.secret_versions_created[each.key].name, aligner = "ALIGN_RATE", reducer = "REDUCE_SUM" },
    # The fleet (fleet-alerts.tf): decisions by kind are "Adapter decisions" above.
    { title = "Clusters waiting past the threshold, by state", metric = google_logging_metric.clusters_waiting_too_long[each.key].name, aligner = "ALIGN_RATE", reducer = "REDUCE_SUM", group_by = ["metric.label.waiting"] },
    { title = "Permanent failures reported, by reason", metric = google_logging_metric.permanent_failures[each.key].name, aligner = "ALIGN_RATE", reducer = "REDUCE_SUM", group_by = ["metric.label.reason"] },
    { title = "Batch tasks that left clusters failed (rotation, resync)", metric = google_logging_metric.batch_tasks_with_failures[each.key].name, aligner = "ALIGN_RATE", reducer = "REDUCE_SUM", group_by = ["metric.label.reason"] },
  ]
}

resource "google_monitoring_dashboard" "overview" {
  for_each       = local.monitoring
  project        = var.project_id
  dashboard_json = module.dashboard[each.key].dashboard_json
  depends_on     = [google_project_service.apis]
}
