# The job's calls to the APIs it depends on, counted and timed from their log entries: the seed's
# pullsecret_gcp_api_calls_total{operation, status_code}, pullsecret_k8s_api_calls_total{...} and
# the latencies pullsecret_{gcp,k8s}_api_duration_seconds{operation} (here in ms, as job_duration).
# The job writes one INFO entry per attempt of every Secret Manager and Kubernetes call
# (shared/logging/api-call-log.ts, from the one wrapper each store's calls pass through) with
# jsonPayload.metadata.api, operation, status_code, grpc_code (Secret Manager), duration_ms,
# call_attempt, and the entry's cluster_id and management_cluster.
#
# status_code is an HTTP status for both APIs. A gRPC code is given as google.rpc.Code maps it
# (shared/gcp/grpc-http-status.ts): OK 200; INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE
# 400; UNAUTHENTICATED 401; PERMISSION_DENIED 403; NOT_FOUND 404; ALREADY_EXISTS, ABORTED 409;
# RESOURCE_EXHAUSTED 429; CANCELLED 499; UNKNOWN, INTERNAL, DATA_LOSS 500; UNIMPLEMENTED 501;
# UNAVAILABLE 503; DEADLINE_EXCEEDED 504. Besides: 2xx (a Kubernetes call that succeeded: the
# client does not say which 2xx), timeout (our deadline ran out first), no_response (no answer).
# Operations: Secret Manager's method names (GetSecret, AddSecretVersion, ...); Kubernetes'
# read-secret (the dry-run PATCH that probes our Secret), create-secret, update-secret,
# delete-secret. Every label here has a few values, whatever the fleet's size.

locals {
  api_call_filter     = "resource.type=\"cloud_run_job\" AND resource.labels.job_name=\"${local.job_name}\" AND jsonPayload.metadata.status_code:* AND jsonPayload.metadata.duration_ms:*"
  gcp_api_call_filter = "${local.api_call_filter} AND jsonPayload.metadata.api=\"secretmanager.googleapis.com\""
  k8s_api_call_filter = "${local.api_call_filter} AND jsonPayload.metadata.api=\"kubernetes\""
}

resource "google_logging_metric" "gcp_api_calls" {
  for_each = local.monitoring
  project  = var.project_id
  name     = "${local.metric_prefix}_gcp_api_calls"
  filter   = local.gcp_api_call_filter
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    display_name = "Pull secret job Secret Manager calls"
    labels {
      key         = "operation"
      description = "the Secret Manager method: GetSecret, CreateSecret, AddSecretVersion, AccessSecretVersion, ..."
    }
    labels {
      key         = "status_code"
      description = "the HTTP status the answer's gRPC code maps to (google.rpc.Code), or no_response"
    }
    labels {
      key         = "grpc_code"
      description = "the gRPC code's name (OK, NOT_FOUND, UNAVAILABLE, ...)"
    }
  }
  label_extractors = {
    operation   = "EXTRACT(jsonPayload.metadata.operation)"
    status_code = "EXTRACT(jsonPayload.metadata.status_code)"
    grpc_code   = "EXTRACT(jsonPayload.metadata.grpc_code)"
  }
  depends_on = [google_project_service.apis]
}

resource "google_logging_metric" "k8s_api_calls" {
  for_each = local.monitoring
  project  = var.project_id
  name     = "${local.metric_prefix}_k8s_api_calls"
  filter   = local.k8s_api_call_filter
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    display_name = "Pull secret job Kubernetes API calls"
    labels {
      key         = "operation"
      description = "read-secret (the dry-run probe), create-secret, update-secret or delete-secret"
    }
    labels {
      key         = "status_code"
      description = "the HTTP status of a failure, 2xx for a success, timeout or no_response"
    }
    labels {
      key         = "management_cluster"
      description = "the management cluster called (a name of MANAGEMENT_CLUSTERS)"
    }
  }
  label_extractors = {
    operation          = "EXTRACT(jsonPayload.metadata.operation)"
    status_code        = "EXTRACT(jsonPayload.metadata.status_code)"
    management_cluster = "EXTRACT(jsonPayload.metadata.management_cluster)"
  }
  depends_on = [google_project_service.apis]
}

# Latencies: one attempt's time, from the request to its answer or failure (a timeout's is the
# deadline). Buckets from 1 ms, each 1.5 times the last, 32 of them (up to about 7 minutes): a
# percentile read from them is within half a bucket, about 25 %.
resource "google_logging_metric" "gcp_api_duration" {
  for_each        = local.monitoring
  project         = var.project_id
  name            = "${local.metric_prefix}_gcp_api_duration"
  filter          = local.gcp_api_call_filter
  value_extractor = "EXTRACT(jsonPayload.metadata.duration_ms)"
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "DISTRIBUTION"
    unit         = "ms"
    display_name = "Pull secret job Secret Manager call latency"
    labels {
      key         = "operation"
      description = "the Secret Manager method"
    }
  }
  label_extractors = {
    operation = "EXTRACT(jsonPayload.metadata.operation)"
  }
  bucket_options {
    exponential_buckets {
      num_finite_buckets = 32
      growth_factor      = 1.5
      scale              = 1
    }
  }
  depends_on = [google_project_service.apis]
}

resource "google_logging_metric" "k8s_api_duration" {
  for_each        = local.monitoring
  project         = var.project_id
  name            = "${local.metric_prefix}_k8s_api_duration"
  filter          = local.k8s_api_call_filter
  value_extractor = "EXTRACT(jsonPayload.metadata.duration_ms)"
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "DISTRIBUTION"
    unit         = "ms"
    display_name = "Pull secret job Kubernetes API call latency"
    labels {
      key         = "operation"
      description = "read-secret, create-secret, update-secret or delete-secret"
    }
    labels {
      key         = "management_cluster"
      description = "the management cluster called"
    }
  }
  label_extractors = {
    operation          = "EXTRACT(jsonPayload.metadata.operation)"
    management_cluster = "EXTRACT(jsonPayload.metadata.management_cluster)"
  }
  bucket_options {
    exponential_buckets {
      num_finite_buckets = 32
      growth_factor      = 1.5
      scale              = 1
    }
  }
  depends_on = [google_project_service.apis]
}

# The seed's PullSecretGCPAPIErrors, as it wrote it: rate(pullsecret_gcp_api_calls_total
# {status_code=~"5.."}[5m]) > 0 for 5m. So a 5xx that one retry cured does not page; 5xx answers
# that keep coming for 5 minutes do. A PromQL condition (as job_failure_rate), so the seed's
# expression and its `for` carry over unchanged; it waits for its metric like every other alert.
resource "google_monitoring_alert_policy" "gcp_api_errors" {
  for_each              = local.monitoring
  project               = var.project_id
  display_name          = "Pull secret job gets server errors (5xx) from Secret Manager (5 min)"
  combiner              = "OR"
  notification_channels = var.alert_notification_channels
  conditions {
    display_name = "Secret Manager 5xx answers for 5 minutes"
    condition_prometheus_query_language {
      query               = "sum(rate(logging_googleapis_com:user_${google_logging_metric.gcp_api_calls["enabled"].name}{status_code=~\"5..\"}[5m])) > 0"
      duration            = "300s"
      evaluation_interval = "60s"
    }
  }
  documentation {
    content   = "Secret Manager has answered the job's calls with server errors for 5 minutes: UNAVAILABLE (503), INTERNAL, UNKNOWN or DATA_LOSS (500), UNIMPLEMENTED (501) or DEADLINE_EXCEEDED (504, our own deadline included). The job retries each call with backoff; a run whose retries all fail ends failed with reason SecretManagerUnavailable, a transient failure that is tried again. Break it down by the operation and grpc_code labels of ${google_logging_metric.gcp_api_calls["enabled"].name} (dashboard \"Pull Secret Adapter\"), and check https://status.cloud.google.com and the Secret Manager quotas of the customer projects. A steady DEADLINE_EXCEEDED with a healthy service means the job's GCP_API_TIMEOUT (30s by default) is too short. See docs/operations.md, \"Troubleshooting\"."
    mime_type = "text/markdown"
  }
  depends_on = [google_project_service.apis, time_sleep.metrics_propagation]
}
