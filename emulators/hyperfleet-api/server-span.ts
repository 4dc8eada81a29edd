import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BASE_PATH, type RouteName } from './access-rules';

/** The route templates spans are named after (`<METHOD> <template>`, as OpenTelemetry's HTTP conventions say). */
const TEMPLATES: Record<RouteName, string> = {
  clusters: `${BASE_PATH}/clusters`,
  cluster: `${BASE_PATH}/clusters/{cluster_id}`,
  statuses: `${BASE_PATH}/clusters/{cluster_id}/statuses`,
  'force-delete': `${BASE_PATH}/clusters/{cluster_id}/force-delete`,
};

const propagator = new W3CTraceContextPropagator();

/** The request's SERVER span, as the HyperFleet API's otel middleware records it. */
export interface ServerSpan {
  /**
   * The trace id problem bodies carry: the caller's (incoming `traceparent`) when it sent one,
   * else this span's when tracing is on; undefined when neither (the caller makes one up).
   */
  readonly traceId: string | undefined;
  /** Names the span after the matched route; its cluster id becomes `hyperfleet.cluster.id`. */
  route(name: RouteName, clusterId?: string): void;
}

/**
 * Starts a SERVER span for a request, the child of its `traceparent` header (W3C trace context),
 * ended when the response closes with its status code (ERROR from 500 on, as servers do: a 4xx
 * is the caller's error, not the server's). With no tracer registered it records nothing, and
 * the incoming trace id is still what problem bodies say.
 */
export function startServerSpan(
  tracer: Tracer | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): ServerSpan {
  const method = req.method ?? 'GET';
  const parent = propagator.extract(ROOT_CONTEXT, req.headers, {
    get: (headers, key) => headers[key],
    keys: (headers) => Object.keys(headers),
  });
  const incoming = trace.getSpanContext(parent);
  const span = (tracer ?? trace.getTracer('hyperfleet-api')).startSpan(
    method,
    {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': method, 'url.path': pathname },
    },
    parent,
  );
  res.once('close', () => {
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) {
      span.setAttribute('error.type', String(res.statusCode));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  });
  const own = span.spanContext();
  return {
    traceId:
      incoming && isSpanContextValid(incoming)
        ? incoming.traceId
        : isSpanContextValid(own)
          ? own.traceId
          : undefined,
    route: (name, clusterId) => {
      span.updateName(`${method} ${TEMPLATES[name]}`);
      span.setAttribute('http.route', TEMPLATES[name]);
      if (clusterId) span.setAttribute('hyperfleet.cluster.id', clusterId);
    },
  };
}
