import { exportTraceRequestSchema, type ExportTraceRequest } from './otlp-json';

// How an OTLP/HTTP endpoint answers (https://opentelemetry.io/docs/specs/otlp/#otlphttp), for the
// JSON encoding this receiver speaks:
// - POST /v1/traces only: another path is 404, another method 405 (Allow: POST);
// - Content-Type application/json; binary protobuf (application/x-protobuf) or anything else is
//   415 with a Status that says to export OTLP/HTTP JSON;
// - Content-Encoding gzip or none (415 otherwise); a body over the limit, before or after gunzip,
//   is 413; undecodable gzip or JSON, or JSON that is not an ExportTraceServiceRequest, is 400
//   "Bad Data" with a google.rpc.BadRequest naming the field (clients MUST NOT retry a 400);
// - every 4xx/5xx body is a google.rpc.Status (JSON-encoded);
// - 200 with an ExportTraceServiceResponse: `{}` when all spans were kept, `partialSuccess`
//   {rejectedSpans, errorMessage} when some were not (spans without a trace or span id).

/** The path OTLP/HTTP exporters post traces to (`<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`). */
export const TRACES_PATH = '/v1/traces';
/** Largest accepted body, compressed or not (an SDK batch of 512 spans is well under 1 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** An answer that ends the request. */
export interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers?: Readonly<Record<string, string>>;
}

/** gRPC codes the Status carries (the spec lets servers omit it; clients may log it). */
const GRPC_CODE: Record<number, number> = { 400: 3, 404: 5, 405: 12, 413: 8, 415: 3, 503: 14 };

/** A google.rpc.Status answer. */
export function failure(
  status: number,
  message: string,
  fieldViolations?: readonly { field: string; description: string }[],
): Answer {
  return {
    status,
    body: {
      code: GRPC_CODE[status] ?? 2,
      message,
      ...(fieldViolations && fieldViolations.length > 0
        ? {
            details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations }],
          }
        : {}),
    },
    ...(status === 405 ? { headers: { allow: 'POST' } } : {}),
  };
}

/** The router's answer for a method and path, or undefined for POST /v1/traces. */
export function routeRequest(method: string, pathname: string): Answer | undefined {
  if (pathname !== TRACES_PATH)
    return failure(
      404,
      `No OTLP endpoint at ${pathname}: this receiver takes trace exports at POST ${TRACES_PATH} (OTLP/HTTP JSON).`,
    );
  if (method !== 'POST')
    return failure(405, `${method} is not allowed on ${TRACES_PATH}: export spans with POST.`);
  return undefined;
}

/** The body's encoding if the headers are acceptable, else the 415 answer. */
export function checkEncoding(
  contentType: string | undefined,
  contentEncoding: string | undefined,
): 'gzip' | 'identity' | Answer {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (media !== 'application/json') {
    const what =
      media === ''
        ? 'The request has no Content-Type'
        : media === 'application/x-protobuf'
          ? 'Content-Type application/x-protobuf (binary protobuf) is not supported here'
          : `Content-Type ${media} is not supported`;
    return failure(
      415,
      `${what}: this receiver accepts OTLP/HTTP JSON only (Content-Type: application/json). Export with OTEL_EXPORTER_OTLP_PROTOCOL=http/json, as @opentelemetry/exporter-trace-otlp-http does.`,
    );
  }
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return 'identity';
  if (encoding === 'gzip') return 'gzip';
  return failure(
    415,
    `Content-Encoding ${encoding} is not supported: send gzip (OTEL_EXPORTER_OTLP_COMPRESSION=gzip) or no compression.`,
  );
}

/** The 413 answer for a body over `limit` bytes. */
export const tooLarge = (limit: number, what: 'body' | 'decompressed body') =>
  failure(
    413,
    `The request ${what} is larger than ${limit} bytes: export smaller batches (OTEL_BSP_MAX_EXPORT_BATCH_SIZE).`,
  );

/** Parses a JSON body into an ExportTraceServiceRequest, or the 400 answer that says why not. */
export function decodeExport(text: string): ExportTraceRequest | Answer {
  let json: unknown;
  try {
    json = text.trim() === '' ? {} : (JSON.parse(text) as unknown);
  } catch (error) {
    return failure(
      400,
      `The body is not valid JSON (${error instanceof Error ? error.message : String(error)}); send a JSON-encoded ExportTraceServiceRequest.`,
    );
  }
  const parsed = exportTraceRequestSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const violations = parsed.error.issues.slice(0, 10).map((issue) => ({
    field: issue.path.map(String).join('.') || '(body)',
    description: issue.message,
  }));
  return failure(
    400,
    `The body is not an OTLP/JSON ExportTraceServiceRequest: ${violations.map((v) => `${v.field}: ${v.description}`).join('; ')}.`,
    violations,
  );
}

/** The ExportTraceServiceResponse: partialSuccess only when spans were rejected. */
export function exportResponse(rejected: number): Record<string, unknown> {
  if (rejected === 0) return {};
  return {
    partialSuccess: {
      rejectedSpans: String(rejected),
      errorMessage: `${rejected} span(s) had an empty or all-zero traceId or spanId and were not stored.`,
    },
  };
}
