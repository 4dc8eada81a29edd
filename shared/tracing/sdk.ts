// The OpenTelemetry SDK half of tracing, loaded by startTracing only when spans are exported
// (`await import('./sdk.js')`, its own bundle chunk with the SDK, resources and exporter).
//
// Why OTLP/HTTP JSON to Google's Telemetry API (https://telemetry.googleapis.com/v1/traces) rather
// than Google's Cloud Trace exporter: one exporter serves production and the local stack's
// receiver (plain OTLP, no Google-specific path to test separately); the Telemetry API takes
// http/json, http/protobuf and gRPC and is Google's recommended trace ingestion (OTLP data model,
// higher limits than the Cloud Trace API); and the Cloud Trace exporter pulls google-gax and the
// gRPC stack into every cold start that traces, where this exporter needs only Node's http.
import { trace } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import type { Logger } from '../logging/logger';
import type { TraceSamplerName, TracingConfig } from './config';
import { googleAccessTokenHeaders, isGoogleTelemetryEndpoint } from './google-auth-headers';
import type { StartTracingOptions } from './start';

/** Bound on one export request and on a flush: an event's answer waits at most this long. */
export const EXPORT_TIMEOUT_MS = 5000;

const SAMPLERS: Record<TraceSamplerName, (ratio: number) => Sampler> = {
  always_on: () => new AlwaysOnSampler(),
  always_off: () => new AlwaysOffSampler(),
  traceidratio: (ratio) => new TraceIdRatioBasedSampler(ratio),
  parentbased_always_on: () => new ParentBasedSampler({ root: new AlwaysOnSampler() }),
  parentbased_always_off: () => new ParentBasedSampler({ root: new AlwaysOffSampler() }),
  parentbased_traceidratio: (ratio) =>
    new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) }),
};

/** Registers an exporting tracer provider globally; returns its flush and shutdown. */
export function startExporting(
  config: TracingConfig,
  opts: StartTracingOptions,
): { flush(): Promise<void>; shutdown(): Promise<void> } {
  const google = isGoogleTelemetryEndpoint(config.tracesEndpoint);
  const exporter = new WarnOnceExporter(
    new OTLPTraceExporter({
      url: config.tracesEndpoint,
      timeoutMillis: EXPORT_TIMEOUT_MS,
      ...(google ? { headers: googleAccessTokenHeaders(opts.logger) } : {}),
    }),
    config.tracesEndpoint,
    opts.logger,
  );
  const provider = new BasicTracerProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({
        // The Telemetry API files spans under this project; OTEL_RESOURCE_ATTRIBUTES may override.
        ...(opts.projectId ? { 'gcp.project_id': opts.projectId } : {}),
        ...config.resourceAttributes,
        'service.name': config.serviceName,
      }),
    ),
    sampler: SAMPLERS[config.sampler](config.samplerRatio),
    spanProcessors: [new BatchSpanProcessor(exporter, { exportTimeoutMillis: EXPORT_TIMEOUT_MS })],
  });
  trace.setGlobalTracerProvider(provider);
  return {
    flush: () => bounded(provider.forceFlush(), opts.logger),
    shutdown: async () => {
      await bounded(provider.shutdown(), opts.logger);
      trace.disable();
    },
  };
}

/** Waits for `work` at most EXPORT_TIMEOUT_MS; a failure or timeout is logged, never thrown. */
async function bounded(work: Promise<void>, logger: Logger | undefined): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), EXPORT_TIMEOUT_MS);
  });
  try {
    const result = await Promise.race([work.then(() => 'done' as const), timeout]);
    if (result === 'timeout')
      logger?.warn('Trace spans not flushed in time; going on without them', {
        timeout_ms: EXPORT_TIMEOUT_MS,
      });
  } catch (error) {
    logger?.warn('Trace spans could not be flushed', {
      error_type: error instanceof Error ? error.constructor.name : typeof error,
    });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Passes spans to the OTLP exporter and logs the first failure of a run of failures as one
 * warning (endpoint and HTTP status, never headers: they may hold a token). Tracing never fails
 * the work it observes.
 */
class WarnOnceExporter implements SpanExporter {
  private failing = false;

  constructor(
    private readonly inner: SpanExporter,
    private readonly endpoint: string,
    private readonly logger: Logger | undefined,
  ) {}

  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) this.failing = false;
      else if (!this.failing) {
        this.failing = true;
        const status = (result.error as { code?: unknown } | undefined)?.code;
        this.logger?.warn('Exporting trace spans failed; they are dropped (the work goes on)', {
          endpoint: this.endpoint,
          spans: spans.length,
          error_type: result.error?.constructor.name ?? 'ExportFailed',
          ...(typeof status === 'number' ? { http_status: status } : {}),
        });
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
