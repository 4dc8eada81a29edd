# The two metrics labelled by HyperFleet cluster: the seed's
# pullsecret_secret_versions_created_total{cluster_id}, and job failures by cluster for the
# dashboard's "failure rate by cluster".
#
# Cardinality. A log-based metric is limited to about 30,000 active time series, and a label, once
# created, cannot be deleted (https://cloud.google.com/logging/docs/logs-based-metrics/labels,
# "Limitations of user-defined labels"); past the limit, points are dropped. A series is active
# only while entries come for it, and both metrics count rare events: a version is created when a
# cluster's pull secret changes (not on an up-to-date run), a failure when a run fails. So the
# series in use are the clusters that changed or failed lately, not the fleet, and the points
# written (what Cloud Monitoring bills) come only with such events. A fleet where tens of thousands of clusters
# rotate their pull secret within a day would reach the limit: then replace these metrics with
# ones without cluster_id (a new name: the label cannot be removed in place) and find the
# clusters from the logs (jsonPayload.metadata.cluster_id, jsonPayload.pullsecret_job_result.
# cluster_id). See docs/operations.md, "Logs, metrics and alerts".

# A 200 answer to AddSecretVersion is a version created (whichever secret of the cluster it went to).
# AddSecretVersion is not retried: an answer lost on the way back leaves a version the next run
# adopts without adding one, and which this metric does not count.
resource "google_logging_metric" "secret_versions_created" {
  for_each = local.monitoring
  project  = var.project_id
  name     = "${local.metric_prefix}_secret_versions_created"
  filter   = "${local.gcp_api_call_filter} AND jsonPayload.metadata.operation=\"AddSecretVersion\" AND jsonPayload.metadata.status_code=\"200\""
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    display_name = "Pull secret versions created"
    labels {
      key         = "cluster_id"
      description = "the HyperFleet cluster whose pull secret got a new version"
    }
  }
  label_extractors = {
    cluster_id = "EXTRACT(jsonPayload.metadata.cluster_id)"
  }
  depends_on = [google_project_service.apis]
}

resource "google_logging_metric" "job_failures" {
  for_each = local.monitoring
  project  = var.project_id
  name     = "${local.metric_prefix}_job_failures"
  filter   = "${local.job_log_filter} AND jsonPayload.pullsecret_job_result.outcome=\"failed\""
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    display_name = "Pull secret job failures by cluster"
    labels {
      key         = "cluster_id"
      description = "the HyperFleet cluster the failed execution ran for"
    }
    labels {
      key         = "reason"
      description = "the failure reason"
    }
  }
  label_extractors = {
    cluster_id = "EXTRACT(jsonPayload.pullsecret_job_result.cluster_id)"
    reason     = "EXTRACT(jsonPayload.pullsecret_job_result.reason)"
  }
  depends_on = [google_project_service.apis]
}
