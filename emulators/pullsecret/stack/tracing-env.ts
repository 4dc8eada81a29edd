/**
 * The OpenTelemetry environment of the stack's processes, all exporting OTLP/HTTP JSON to the
 * stack's own receiver (standard OTEL_* names, as Cloud Run would set them for Cloud Trace).
 */
export function tracingEnv(endpoint: string): {
  /** Adapter instances, reporter and the job: export every sampled span. */
  readonly components: Record<string, string>;
  /** Sentinel: its publish span starts each reconcile's trace. */
  readonly sentinel: Record<string, string>;
  /** The HyperFleet API: a span per request that continues a sampled caller's trace, no others. */
  readonly hyperfleetApi: Record<string, string>;
} {
  const components = { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint };
  // Long-running emulators export in batches; a short delay shows their spans within a second.
  const emulator = { ...components, OTEL_BSP_SCHEDULE_DELAY: '500' };
  return {
    components,
    sentinel: emulator,
    // Without this every poll (Sentinel, HyperShift, the console, the timeline: several a second)
    // would start a trace of its own; parent-based-off records only requests that carry a
    // sampled traceparent, i.e. those of a reconcile.
    hyperfleetApi: { ...emulator, OTEL_TRACES_SAMPLER: 'parentbased_always_off' },
  };
}
