variable "enabled" {
  description = "Export spans to Cloud Trace (OTLP to telemetry.googleapis.com). false: no tracing API, no grant, no OTEL_* variable (the code's default, OTEL_TRACES_EXPORTER=none, then costs nothing)."
  type        = bool
  nullable    = false
}

variable "sampler_ratio" {
  description = "The share of new traces sampled (OTEL_TRACES_SAMPLER_ARG of parentbased_traceidratio), 0 to 1. A trace that arrives sampled (Sentinel's traceparent, the adapter's TRACEPARENT, the result message's traceparent) stays sampled: the decision is made once, where the trace starts."
  type        = number
  nullable    = false
  validation {
    condition     = var.sampler_ratio >= 0 && var.sampler_ratio <= 1
    error_message = "tracing_sampler_ratio must be between 0 and 1 (the share of new traces sampled; 1 samples every reconcile)."
  }
}
