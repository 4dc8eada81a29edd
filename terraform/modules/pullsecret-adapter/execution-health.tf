# Executions that end without the job's result line (an OOM kill, a crash, the task timeout, a
# cancellation) never reach job_outcomes, which counts result lines. Cloud Run's system_event audit
# entry for /Jobs.RunJob is written when any execution ends, with a non-zero protoPayload.status
# when it failed (the same entries the execution-finished sink routes, logging.tf): counted here by
# code, with an alert. And the reporter's ERROR for an execution-finished entry it cannot read
# (Cloud Run documents no schema for it), counted and alerting too.

locals {
  execution_finished_filter = join(" AND ", [
    "resource.type=\"cloud_run_job\"",
    "resource.labels.job_name=\"${local.job_name}\"",
    "logName=\"projects/${var.project_id}/logs/cloudaudit.googleapis.com%2Fsystem_event\"",
    "protoPayload.methodName=\"/Jobs.RunJob\"",
  ])
}

resource "google_logging_metric" "executions_ended_abnormally" {
  for_each = local.monitoring
  project  = var.project_id
  name     = "${local.metric_prefix}_executions_ended_abnormally"
  # A failed execution carries a status with a non-zero code; a success none (or code 0).
  filter = "${local.execution_finished_filter} AND protoPayload.status.code:* AND NOT protoPayload.status.code=0"
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    display_name = "Pull secret executions that ended failed (killed, crashed, timed out, cancelled or failed)"
    labels {
      key         = "code"
      description = "google.rpc.Code of the execution's end (1 CANCELLED, 2 UNKNOWN: any other failure)"
    }
  }
  label_extractors = {
    code = "EXTRACT(protoPayload.status.code)"
  }
  depends_on = [google_project_service.apis]
}

resource "google_logging_metric" "finished_entry_unreadable" {
  for_each   = local.monitoring
  project    = var.project_id
  name       = "${local.metric_prefix}_finished_entry_unreadable"
  filter     = "resource.type=\"cloud_run_revision\" AND resource.labels.service_name=\"${var.name_prefix}-reporter\" AND jsonPayload.metadata.decision=\"finished-entry-unreadable\""
  depends_on = [google_project_service.apis]
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    display_name = "Execution-finished entries the reporter could not read"
  }
}

resource "google_monitoring_alert_policy" "executions_ended_abnormally" {
  for_each              = local.monitoring
  project               = var.project_id
  display_name          = "Pull secret executions ended failed without a result (killed, crashed, timed out)"
  combiner              = "OR"
  notification_channels = var.alert_notification_channels
  conditions {
    display_name = "executions whose system_event entry carries a failed status"
    condition_threshold {
      filter          = "resource.type=\"cloud_run_job\" AND metric.type=\"logging.googleapis.com/user/${google_logging_metric.executions_ended_abnormally["enabled"].name}\""
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
    content   = "An execution of ${local.job_name} ended failed. If the job printed no result line (job_outcomes did not count it) the platform ended it: out of memory (raise job.memory), the task timeout (job.timeout_seconds), a crash or a cancellation. The execution's own logs and its Completed condition (gcloud run jobs executions describe) say which; the reporter reports it to HyperFleet from Cloud Run's conditions. See docs/operations.md, \"Troubleshooting\"."
    mime_type = "text/markdown"
  }
  depends_on = [google_project_service.apis, time_sleep.metrics_propagation]
}

resource "google_monitoring_alert_policy" "finished_entry_unreadable" {
  for_each              = local.monitoring
  project               = var.project_id
  display_name          = "Pull secret reporter cannot read Cloud Run's execution-finished entries"
  combiner              = "OR"
  notification_channels = var.alert_notification_channels
  conditions {
    display_name = "reporter ERROR decision finished-entry-unreadable"
    condition_threshold {
      filter          = "resource.type=\"cloud_run_revision\" AND metric.type=\"logging.googleapis.com/user/${google_logging_metric.finished_entry_unreadable["enabled"].name}\""
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
    content   = "The reporter received an execution-finished entry whose shape it does not understand (Cloud Run may have changed it). Those executions are still reported by the adapter's check of silent executions (EXECUTION_CHECK_AFTER), later. The ERROR log line carries the problem; see docs/operations.md, \"Troubleshooting\"."
    mime_type = "text/markdown"
  }
  depends_on = [google_project_service.apis, time_sleep.metrics_propagation]
}
