# The launcher holds roles/run.jobsExecutorWithOverrides on the job (launch-queue.tf), and the adapter
# may create launch tasks that call RunJob as the launcher with any body: together they let the
# adapter's identity set any environment variable on an execution: NODE_OPTIONS runs code as the job before any check
# of ours, MANAGEMENT_CLUSTERS or HYPERFLEET_API_BASE_URL would send the job's token elsewhere. The
# code sends only the names in run-job-overrides.json (functions/adapter/cloud-run/execution-overrides.ts
# reads the same file) and the job refuses redirecting variables on Cloud Run
# (functions/pull-secret-job/config/redirect-guard.ts); what neither can stop is counted here from Cloud
# Run's audit log and alerted on (SECURITY.md, "Execution overrides").
module "run_job_overrides" {
  source = "./modules/run-job-overrides"

  allowed_names     = jsondecode(file("${path.module}/run-job-overrides.json")).names
  operator_commands = jsondecode(file("${path.module}/run-job-overrides.json")).operatorCommands.names
  job_name          = local.job_name
}

# RunJob is a Data Access entry (run.jobs.run and run.jobs.runWithOverrides are DATA_WRITE), not
# Admin Activity, and Data Access logs are off by default
# (https://cloud.google.com/run/docs/audit-logging,
# https://cloud.google.com/logging/docs/audit/configure-data-access): without this the metric below
# never counts anything. Authoritative for run.googleapis.com's audit config in the project; set
# monitoring.run_job_audit_logs = false where audit configs are managed elsewhere, and enable
# DATA_WRITE for run.googleapis.com there.
resource "google_project_iam_audit_config" "run_data_write" {
  for_each = var.monitoring.run_job_audit_logs ? { enabled = true } : {}
  project  = var.project_id
  service  = "run.googleapis.com"
  audit_log_config {
    log_type = "DATA_WRITE"
  }
  depends_on = [google_project_service.apis]
}

resource "google_logging_metric" "unexpected_run_job_overrides" {
  for_each = local.monitoring
  project  = var.project_id
  name     = "${local.metric_prefix}_unexpected_run_job_overrides"
  filter   = module.run_job_overrides.audit_filter
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    display_name = "RunJob calls with overrides the adapter never sends"
    labels {
      key         = "caller"
      description = "the principal that called RunJob"
    }
  }
  label_extractors = {
    caller = "EXTRACT(protoPayload.authenticationInfo.principalEmail)"
  }
  depends_on = [google_project_service.apis]
}

resource "google_monitoring_alert_policy" "unexpected_run_job_overrides" {
  for_each              = local.monitoring
  project               = var.project_id
  display_name          = "Pull secret job started with overrides the adapter never sends"
  combiner              = "OR"
  notification_channels = var.alert_notification_channels
  conditions {
    display_name = "RunJob with an unexpected override"
    condition_threshold {
      # No resource.type: the metric takes the audit entry's monitored resource, whatever Cloud Run files it under.
      filter          = "metric.type=\"logging.googleapis.com/user/${google_logging_metric.unexpected_run_job_overrides["enabled"].name}\""
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "0s"
      aggregations {
        alignment_period     = "60s"
        per_series_aligner   = "ALIGN_SUM"
        cross_series_reducer = "REDUCE_SUM"
        group_by_fields      = ["metric.label.caller"]
      }
    }
  }
  documentation {
    content   = "An execution of ${local.job_name} was started with an environment variable outside terraform/modules/pullsecret-adapter/run-job-overrides.json, a secret reference as a value, or args: none of which the adapter sends. Treat it as a possible compromise of the caller (the caller label: normally the launcher service account, which holds run.jobsExecutorWithOverrides and acts for the tasks the adapter's service account creates in the launch queue; any other caller is not this system): an override such as NODE_OPTIONS runs code as the job's service account. Find the entries from the log-based metric ${google_logging_metric.unexpected_run_job_overrides["enabled"].name} (Logs Explorer, \"View logs\" on the metric: protoPayload.request shows the overrides), then read the execution's own logs; if the overrides were not yours, rotate what the job's service account can reach. See SECURITY.md, \"Execution overrides\"."
    mime_type = "text/markdown"
  }
  depends_on = [google_project_service.apis, time_sleep.metrics_propagation]
}
