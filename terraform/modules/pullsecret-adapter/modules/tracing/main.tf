locals {
  # Both APIs: the Telemetry API is the OTLP endpoint the code exports to
  # (OTEL_EXPORTER_OTLP_ENDPOINT's default, https://telemetry.googleapis.com/v1/traces); it stores
  # spans only while the Cloud Trace API is enabled (it discards them otherwise), and Cloud Trace
  # is where they are read.
  apis = var.enabled ? ["cloudtrace.googleapis.com", "telemetry.googleapis.com"] : []

  # Granted to each runtime identity (adapter, reporter, job) on the platform project:
  # - roles/cloudtrace.agent ("Cloud Trace Agent", for service accounts: cloudtrace.traces.patch),
  #   the role issue 18 names and the one Google documents for services writing traces;
  # - roles/telemetry.tracesWriter ("Cloud Telemetry Traces Writer": telemetry.traces.write), the
  #   permission the Telemetry API's OTLP endpoint checks on every export. Google's role list today
  #   also puts telemetry.traces.write in the agent role, but the Telemetry API documents its own
  #   role for that endpoint; granting it explicitly keeps export working whatever the agent role
  #   holds, and neither role can read traces or write anything else.
  roles = var.enabled ? ["roles/cloudtrace.agent", "roles/telemetry.tracesWriter"] : []

  # The standard OTEL_* variables (shared/tracing/config.ts). OTEL_EXPORTER_OTLP_ENDPOINT is left
  # to the code's default (Google's endpoint). parentbased_traceidratio: a trace is sampled where it
  # starts (the adapter, or the reporter for a report no execution published) and every hop after
  # follows the traceparent's sampled flag, so a sampled reconcile is never missing its job or its
  # status write. OTEL_SERVICE_NAME is each component's own default, set so Cloud Trace names it
  # even if a default changes.
  common_env = {
    OTEL_TRACES_EXPORTER    = "otlp"
    OTEL_TRACES_SAMPLER     = "parentbased_traceidratio"
    OTEL_TRACES_SAMPLER_ARG = tostring(var.sampler_ratio)
  }
  adapter_env  = var.enabled ? merge(local.common_env, { OTEL_SERVICE_NAME = "pullsecret-adapter" }) : {}
  reporter_env = var.enabled ? merge(local.common_env, { OTEL_SERVICE_NAME = "pullsecret-reporter" }) : {}
  job_env      = var.enabled ? merge(local.common_env, { OTEL_SERVICE_NAME = "pullsecret-job" }) : {}
}
