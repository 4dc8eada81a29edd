import { HTTP_ATTRIBUTES } from '../tracing/attributes';
import { SpanKind, withSpan, type Span } from '../tracing/spans';
import { currentTraceparent, currentTracestate } from '../tracing/traceparent';

// The API's path parameters, named as its OpenAPI spec names them (after the collection).
const ID_PARAMETERS: Readonly<Record<string, string>> = {
  clusters: '{cluster_id}',
  nodepools: '{nodepool_id}',
  resources: '{resource_id}',
};

/**
 * The route template of a call, as the API's OpenAPI spec writes it: ids become their parameter
 * names and the query goes, so spans of one route group together whatever the cluster
 * (`/api/hyperfleet/v1/clusters/abc/statuses?page=2` -> `.../clusters/{cluster_id}/statuses`).
 */
export function routeTemplate(apiPrefix: string, path: string): string {
  const segments = path.split('?')[0]!.split('/');
  const templated = segments.map((segment, at) => {
    const parameter = ID_PARAMETERS[segments[at - 1] ?? ''];
    return parameter && segment !== '' ? parameter : segment;
  });
  return `${apiPrefix}${templated.join('/')}`;
}

/** W3C trace context headers for a request made inside the active span (none outside one). */
export function traceContextHeaders(): Record<string, string> {
  const traceparent = currentTraceparent();
  if (!traceparent) return {};
  const tracestate = currentTracestate();
  return { traceparent, ...(tracestate ? { tracestate } : {}) };
}

/**
 * One CLIENT span per logical API call (its retries included), named `<METHOD> <route template>`
 * per the OpenTelemetry HTTP conventions; `statusOf` reads the answer's status for the span.
 */
export function withApiCallSpan<T>(
  method: string,
  template: string,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return withSpan(
    `${method} ${template}`,
    { [HTTP_ATTRIBUTES.method]: method, [HTTP_ATTRIBUTES.urlTemplate]: template },
    fn,
    { kind: SpanKind.CLIENT },
  );
}
