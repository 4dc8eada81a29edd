# The fleet's alerts: what an operator of a fleet asks first (issue 41): a cluster failing for
# good, clusters that do not converge or stay stuck waiting for another adapter, the platform
# default pull secret revoked, a rotation that did not finish. Each reads a structured log line the
# code writes where it has the fact (test/unit/terraform/fleet-alerts.test.ts evaluates every
# filter on entries the real code and logger write). Labels are states, reasons and kinds: a few
# values each, whatever the fleet's size; the clusters themselves are in the lines and in
# `npm run -s fleet -- report`, which uses the same definitions.

locals {
  adapter_log_filter = "resource.type=\"cloud_run_revision\" AND resource.labels.service_name=\"${var.name_prefix}-adapter\""
  # Anything of this deployment that runs on Cloud Run (the functions, the job, and any batch job
  # or function the rotation adds under the same prefix).
  deployment_log_filter = "((resource.type=\"cloud_run_revision\" AND resource.labels.service_name=~\"^${var.name_prefix}-\") OR (resource.type=\"cloud_run_job\" AND resource.labels.job_name=~\"^${var.name_prefix}-\"))"
}

# Every event of a cluster that has not converged logs, on the adapter's decision line, `waiting`
# (the fleet report's state: shared/status/convergence.ts) and `waiting_seconds` (since when, as
# the report counts it). Sentinel re-sends such a cluster every few seconds, so a cluster waiting
# past the threshold writes such a line several times a minute for as long as it waits, and the
# metric counts it while it does: a log-based metric cannot hold a per-cluster state, but each line
# carries its own age, so "a line older than the threshold in the window" is "a cluster stuck now".
# Counting the rate of not-met decisions instead would page on every large provisioning wave
# (clusters normally wait for other adapters for a while) and miss a single cluster stuck for a
# day. Thresholds sit in the filter: preconditions-not-met (waiting for another adapter) has its
# own; queued, running, failed and not-available share the not-converged one. `pending` (no status
# of ours at this generation yet) is left out: it lasts until the first decision writes one, so a
# pending line's age is the cluster's, from before the adapter saw it (a first deployment over an
# existing fleet), not a wait of ours.
resource "google_logging_metric" "clusters_waiting_too_long" {
  for_each = local.monitoring
  project  = var.project_id
  name     = "${local.metric_prefix}_clusters_waiting_too_long"
  filter   = "${local.adapter_log_filter} AND jsonPayload.metadata.decision:* AND ((jsonPayload.metadata.waiting=\"preconditions-not-met\" AND jsonPayload.metadata.waiting_seconds>=${var.monitoring.stuck_preconditions_after_seconds}) OR (jsonPayload.metadata.waiting=(\"queued\" OR \"running\" OR \"failed\" OR \"not-available\") AND jsonPayload.metadata.waiting_seconds>=${var.monitoring.not_converged_after_seconds}))"
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    display_name = "Adapter decisions on clusters waiting past the threshold"
    labels {
      key         = "waiting"
      description = "the cluster's state: preconditions-not-met, queued, running, failed or not-available"
    }
  }
  label_extractors = {
    waiting = "EXTRACT(jsonPayload.metadata.waiting)"
  }
  depends_on = [google_project_service.apis]
}

# A status written with failure_kind = permanent (the reporter for a job's permanent failure, the
# adapter for a refused launch): Health=False that no retry fixes until someone acts. Only stored
# writes (one the API discarded as older changed nothing); a redelivered result may be stored and
# counted twice, which an alert on "any" does not mind.
resource "google_logging_metric" "permanent_failures" {
  for_each = local.monitoring
  project  = var.project_id
  name     = "${local.metric_prefix}_permanent_failures"
  filter   = "${local.function_log_filter} AND jsonPayload.metadata.status_write=\"stored\" AND jsonPayload.metadata.failure_kind=\"permanent\""
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    display_name = "Permanent failures reported"
    labels {
      key         = "reason"
      description = "the Health condition's reason (PermissionDenied, InvalidPullSecret, UnknownManagementCluster, ...)"
    }
  }
  label_extractors = {
    reason = "EXTRACT(jsonPayload.metadata.health_reason)"
  }
  depends_on = [google_project_service.apis]
}

# Secret Manager said the platform default's current version was disabled or destroyed: the
# rotation logs it once at ERROR (event default-pull-secret-revoked, with secret, version and
# event_type) instead of fanning out.
resource "google_logging_metric" "default_pull_secret_revoked" {
  for_each = local.monitoring
  project  = var.project_id
  name     = "${local.metric_prefix}_default_pull_secret_revoked"
  filter   = "${local.deployment_log_filter} AND severity>=ERROR AND jsonPayload.metadata.event=\"default-pull-secret-revoked\""
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    display_name = "Platform default pull secret revoked"
    labels {
      key         = "event_type"
      description = "SECRET_VERSION_DISABLE or SECRET_VERSION_DESTROY"
    }
  }
  label_extractors = {
    event_type = "EXTRACT(jsonPayload.metadata.event_type)"
  }
  depends_on = [google_project_service.apis]
}

# Each task of a batch run (a rotation of the default, a resync) logs batch-finished with its
# counts; one with clusters_failed > 0 left clusters behind, and one that logs batch-failed (the
# cluster list unreadable, the default unreadable, the launch refused) left its whole share.
resource "google_logging_metric" "batch_tasks_with_failures" {
  for_each = local.monitoring
  project  = var.project_id
  name     = "${local.metric_prefix}_batch_tasks_with_failures"
  filter   = "${local.deployment_log_filter} AND ((jsonPayload.metadata.event=\"batch-finished\" AND jsonPayload.metadata.clusters_failed>0) OR jsonPayload.metadata.event=\"batch-failed\")"
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    display_name = "Batch tasks that left clusters failed"
    labels {
      key         = "reason"
      description = "rotation or resync"
    }
  }
  label_extractors = {
    reason = "EXTRACT(jsonPayload.metadata.reason)"
  }
  depends_on = [google_project_service.apis]
}

resource "google_monitoring_alert_policy" "permanent_failures" {
  for_each              = local.monitoring
  project               = var.project_id
  display_name          = "Pull secret: a cluster fails permanently"
  combiner              = "OR"
  notification_channels = var.alert_notification_channels
  conditions {
    display_name = "statuses stored with failure_kind permanent"
    condition_threshold {
      filter          = "resource.type=\"cloud_run_revision\" AND metric.type=\"logging.googleapis.com/user/${google_logging_metric.permanent_failures["enabled"].name}\""
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "0s"
      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_SUM"
        cross_series_reducer = "REDUCE_SUM"
        group_by_fields      = ["metric.label.reason"]
      }
    }
  }
  documentation {
    content   = "A cluster's pullsecret status says Health=False with data.failure_kind = permanent (the reason is the label). No retry fixes it before PERMANENT_FAILURE_RETRY_INTERVAL or a new generation: fix what the message names (a grant, the pull secret in the spec, an unknown management cluster). Which clusters: `npm run -s fleet -- report` (\"failing permanently\") or the status-write lines with jsonPayload.metadata.failure_kind=\"permanent\". See docs/operations.md, \"Logs, metrics and alerts\" and \"Troubleshooting\"."
    mime_type = "text/markdown"
  }
  depends_on = [google_project_service.apis, time_sleep.metrics_propagation]
}

resource "google_monitoring_alert_policy" "clusters_waiting_too_long" {
  for_each              = local.monitoring
  project               = var.project_id
  display_name          = "Pull secret: clusters not converged (${var.monitoring.not_converged_after_seconds} s) or stuck in PreconditionsNotMet (${var.monitoring.stuck_preconditions_after_seconds} s)"
  combiner              = "OR"
  notification_channels = var.alert_notification_channels
  conditions {
    display_name = "adapter decisions on clusters waiting past the threshold, by state"
    condition_threshold {
      filter          = "resource.type=\"cloud_run_revision\" AND metric.type=\"logging.googleapis.com/user/${google_logging_metric.clusters_waiting_too_long["enabled"].name}\""
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "0s"
      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_SUM"
        cross_series_reducer = "REDUCE_SUM"
        group_by_fields      = ["metric.label.waiting"]
      }
    }
  }
  documentation {
    content   = "Clusters have waited to converge past the threshold; the waiting label says in which state. preconditions-not-met: another adapter has not reported what our preconditions need (the unmet one is in the status' data.precondition): look at that adapter. queued: the launch queue is paused or behind (`npm run -s fleet -- report` shows its state; resume it, or raise launch_queue.rate_per_minute within the RunJob quota). running: executions stay silent (the adapter looks them up after EXECUTION_CHECK_AFTER; check the job's logs). failed / not-available: read the status' Health reason. Which clusters: `npm run -s fleet -- report --not-converged-after ${var.monitoring.not_converged_after_seconds}s`, or the adapter's decision lines with jsonPayload.metadata.waiting_seconds. See docs/operations.md, \"Logs, metrics and alerts\"."
    mime_type = "text/markdown"
  }
  depends_on = [google_project_service.apis, time_sleep.metrics_propagation]
}

resource "google_monitoring_alert_policy" "default_pull_secret_revoked" {
  for_each              = local.monitoring
  project               = var.project_id
  display_name          = "Pull secret: the platform default pull secret's current version was disabled or destroyed"
  combiner              = "OR"
  notification_channels = var.alert_notification_channels
  conditions {
    display_name = "default-pull-secret-revoked entries"
    condition_threshold {
      filter          = "metric.type=\"logging.googleapis.com/user/${google_logging_metric.default_pull_secret_revoked["enabled"].name}\""
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "0s"
      aggregations {
        alignment_period     = "60s"
        per_series_aligner   = "ALIGN_SUM"
        cross_series_reducer = "REDUCE_SUM"
        group_by_fields      = ["metric.label.event_type"]
      }
    }
  }
  documentation {
    content   = "Secret Manager reports the version of the platform default pull secret that clusters on the default use as disabled (SECRET_VERSION_DISABLE) or destroyed (SECRET_VERSION_DESTROY). Nothing was fanned out: the clusters keep the bytes they have. If the credential leaked, add a new version with a fresh credential (that is a rotation: every cluster on the default gets it within minutes); if the disable was a mistake, enable the version again. The ERROR entry (jsonPayload.metadata.event = default-pull-secret-revoked) names the secret and the version. See docs/operations.md, \"Logs, metrics and alerts\"."
    mime_type = "text/markdown"
  }
  depends_on = [google_project_service.apis, time_sleep.metrics_propagation]
}

resource "google_monitoring_alert_policy" "rotation_incomplete" {
  for_each              = local.monitoring
  project               = var.project_id
  display_name          = "Pull secret: a rotation of the default pull secret left clusters failed"
  combiner              = "OR"
  notification_channels = var.alert_notification_channels
  conditions {
    display_name = "rotation batch tasks with clusters_failed > 0, or failed"
    condition_threshold {
      filter          = "metric.type=\"logging.googleapis.com/user/${google_logging_metric.batch_tasks_with_failures["enabled"].name}\" AND metric.label.reason=\"rotation\""
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
    content   = "A task of a rotation's batch run finished with clusters it could not bring to the new default version (jsonPayload.metadata.event = batch-finished, reason rotation, clusters_failed > 0; the entry names the selector and the task), or stopped (batch-failed: the cluster list or the default could not be read, or the batch could not be launched; the entry says why). Those clusters still carry the previous version. Find them with `npm run -s fleet -- report` (their status names the failure), fix the cause, then `npm run -s fleet -- resync --default`. See docs/operations.md, \"Logs, metrics and alerts\"."
    mime_type = "text/markdown"
  }
  depends_on = [google_project_service.apis, time_sleep.metrics_propagation]
}
