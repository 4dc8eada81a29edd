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
import { untracedLogger } from '../logging/untraced-logger';
import type { TraceSamplerName, TracingConfig } from './config';
import { googleAccessTokenHeaders, isGoogleTelemetryEndpoint } from './google-auth-headers';
import { endpointForLogs } from './endpoint-for-logs';
import { FLUSH_TIMEOUTS_BEFORE_SKIPPING, FlushTimeouts } from './flush-timeouts';
import type { StartTracingOptions } from './start-options';

/** Bound on a flush: an event's answer waits at most this long for its spans to leave. */
export const FLUSH_TIMEOUT_MS = 5000;

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
  flushTimeoutMs: number = FLUSH_TIMEOUT_MS,
): { flush(): Promise<void>; shutdown(): Promise<void> } {
  // The exporter's warnings come from batch timers and header factories, inside whatever event's
  // async context started them: logged outside any trace, never in an unrelated reconcile's group.
  const logger = opts.logger ? untracedLogger(opts.logger) : undefined;
  const google = isGoogleTelemetryEndpoint(config.tracesEndpoint);
  const timeouts = new FlushTimeouts();
  const exporter = new WarnOnceExporter(
    new OTLPTraceExporter({
      url: config.tracesEndpoint,
      timeoutMillis: config.exportTimeoutMs,
      // Passed explicitly (zod-checked) rather than left to the exporter's own process.env reads.
      headers: google ? googleAccessTokenHeaders(logger, config.headers) : { ...config.headers },
    }),
    config.tracesEndpoint,
    logger,
    () => timeouts.answered(),
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
    spanProcessors: [
      new BatchSpanProcessor(exporter, { exportTimeoutMillis: config.exportTimeoutMs }),
    ],
  });
  trace.setGlobalTracerProvider(provider);
  return {
    flush: () => flushUnlessHung(provider.forceFlush(), timeouts, flushTimeoutMs, logger),
    shutdown: async () => {
      await bounded(provider.shutdown(), flushTimeoutMs, logger);
      trace.disable();
    },
  };
}

/**
 * A flush bounded by `ms`; after repeated timeouts (a hung endpoint) not waited for at all, so
 * events stop paying the bound each time. The first timeout of a run is the one warning.
 */
async function flushUnlessHung(
  work: Promise<void>,
  timeouts: FlushTimeouts,
  ms: number,
  logger: Logger | undefined,
): Promise<void> {
  if (timeouts.skipping) {
    work.catch(() => undefined); // the exporter's timeout bounds it; its failure is warned there
    return;
  }
  const result = await bounded(work, ms, logger, true);
  if (result === 'done') timeouts.answered();
  if (result !== 'timeout') return;
  const { warn, startsSkipping } = timeouts.timedOut();
  if (warn)
    logger?.warn('Trace spans not flushed in time; going on without them', { timeout_ms: ms });
  if (startsSkipping)
    logger?.info('Trace flushes keep timing out; events no longer wait for them', {
      consecutive_timeouts: FLUSH_TIMEOUTS_BEFORE_SKIPPING,
    });
}

/** Waits for `work` at most `ms`; a failure (or, unless quiet, a timeout) is logged, never thrown. */
async function bounded(
  work: Promise<void>,
  ms: number,
  logger: Logger | undefined,
  quietTimeout = false,
): Promise<'done' | 'timeout' | 'failed'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    const result = await Promise.race([work.then(() => 'done' as const), timeout]);
    if (result === 'timeout' && !quietTimeout)
      logger?.warn('Trace spans not flushed in time; going on without them', { timeout_ms: ms });
    return result;
  } catch (error) {
    logger?.warn('Trace spans could not be flushed', {
      error_type: error instanceof Error ? error.constructor.name : typeof error,
    });
    return 'failed';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Passes spans to the OTLP exporter and logs the first failure of a run of failures as one
 * warning (endpoint origin and path, and HTTP status; never headers, userinfo or query: they may
 * hold a token). Tracing never fails
 * the work it observes.
 */
class WarnOnceExporter implements SpanExporter {
  private failing = false;

  constructor(
    private readonly inner: SpanExporter,
    private readonly endpoint: string,
    private readonly logger: Logger | undefined,
    private readonly onSuccess: () => void,
  ) {}

  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) {
        this.failing = false;
        this.onSuccess();
      } else if (!this.failing) {
        this.failing = true;
        const status = (result.error as { code?: unknown } | undefined)?.code;
        this.logger?.warn('Exporting trace spans failed; they are dropped (the work goes on)', {
          endpoint: endpointForLogs(this.endpoint),
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
