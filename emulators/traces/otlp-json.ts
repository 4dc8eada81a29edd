import * as z from 'zod';
import { SPAN_KINDS, STATUS_CODES, type AttributeValue, type StoredSpan } from './stored-span';

// OTLP/JSON (opentelemetry/proto/collector/trace/v1/trace_service.proto, JSON-mapped as the OTLP
// spec says): lowerCamelCase keys, hex trace and span ids, integer enums, int64 as a decimal
// string or a number. Unknown fields are ignored (zod strips them), as receivers MUST.

// A JSON number beyond 2^53 parses inexactly here (exporters send strings, which stay exact).
const int64 = z.union([
  z.string().regex(/^\d+$/, 'must be a decimal integer'),
  z.number().nonnegative().max(1e20).refine(Number.isInteger, 'must be a whole number'),
]);
const hexId = (bytes: number) =>
  z
    .string()
    .regex(
      new RegExp(`^([0-9a-fA-F]{${bytes * 2}})?$`),
      `must be ${bytes * 2} hex digits (OTLP/JSON ids are hex, not base64)`,
    );

interface AnyValue {
  stringValue?: string | undefined;
  boolValue?: boolean | undefined;
  intValue?: string | number | undefined;
  doubleValue?: number | string | undefined;
  bytesValue?: string | undefined;
  arrayValue?: { values?: AnyValue[] | undefined } | undefined;
  kvlistValue?: { values?: KeyValue[] | undefined } | undefined;
}
interface KeyValue {
  key: string;
  value?: AnyValue | undefined;
}
const anyValueSchema: z.ZodType<AnyValue> = z.lazy(() =>
  z.object({
    stringValue: z.string().optional(),
    boolValue: z.boolean().optional(),
    intValue: z.union([z.string().regex(/^-?\d+$/), z.number().int()]).optional(),
    doubleValue: z.union([z.number(), z.enum(['NaN', 'Infinity', '-Infinity'])]).optional(),
    bytesValue: z.string().optional(),
    arrayValue: z.object({ values: z.array(anyValueSchema).optional() }).optional(),
    kvlistValue: z.object({ values: z.array(keyValueSchema).optional() }).optional(),
  }),
);
const keyValueSchema: z.ZodType<KeyValue> = z.lazy(() =>
  z.object({ key: z.string(), value: anyValueSchema.optional() }),
);
const attributes = z.array(keyValueSchema).optional();

const spanSchema = z.object({
  traceId: hexId(16).optional(),
  spanId: hexId(8).optional(),
  parentSpanId: hexId(8).optional(),
  name: z.string().optional(),
  kind: z.number().int().min(0).max(5).optional(),
  startTimeUnixNano: int64.optional(),
  endTimeUnixNano: int64.optional(),
  attributes,
  events: z
    .array(z.object({ name: z.string().optional(), timeUnixNano: int64.optional(), attributes }))
    .optional(),
  status: z
    .object({ code: z.number().int().min(0).max(2).optional(), message: z.string().optional() })
    .optional(),
});

/** ExportTraceServiceRequest in OTLP/JSON; an empty object is a valid (empty) request. */
export const exportTraceRequestSchema = z.object({
  resourceSpans: z
    .array(
      z.object({
        resource: z.object({ attributes }).optional(),
        scopeSpans: z.array(z.object({ spans: z.array(spanSchema).optional() })).optional(),
      }),
    )
    .optional(),
});
export type ExportTraceRequest = z.output<typeof exportTraceRequestSchema>;

function plain(value: AnyValue | undefined): AttributeValue {
  if (!value) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) {
    const n = Number(value.intValue);
    return Number.isSafeInteger(n) ? n : String(value.intValue);
  }
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.bytesValue !== undefined) return value.bytesValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  if (value.kvlistValue) return record(value.kvlistValue.values);
  return null;
}

function record(list: readonly KeyValue[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, plain(kv.value)]));
}

const isZero = (hex: string | undefined) => !hex || /^0+$/.test(hex);

/** The request's spans, flattened; spans without a trace or span id are rejected (counted). */
export function flattenSpans(request: ExportTraceRequest): {
  spans: StoredSpan[];
  rejected: number;
} {
  const spans: StoredSpan[] = [];
  let rejected = 0;
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = record(resourceSpans.resource?.attributes);
    const service = typeof resource['service.name'] === 'string' ? resource['service.name'] : '';
    for (const scope of resourceSpans.scopeSpans ?? [])
      for (const span of scope.spans ?? []) {
        if (isZero(span.traceId) || isZero(span.spanId)) {
          rejected++;
          continue;
        }
        const events = (span.events ?? []).map((e) => ({
          name: e.name ?? '',
          timeUnixNano: String(e.timeUnixNano ?? 0),
          attributes: record(e.attributes),
        }));
        spans.push({
          traceId: span.traceId!.toLowerCase(),
          spanId: span.spanId!.toLowerCase(),
          ...(isZero(span.parentSpanId) ? {} : { parentSpanId: span.parentSpanId!.toLowerCase() }),
          name: span.name ?? '',
          kind: SPAN_KINDS[span.kind ?? 0]!,
          service,
          startUnixNano: String(span.startTimeUnixNano ?? 0),
          endUnixNano: String(span.endTimeUnixNano ?? 0),
          status: {
            code: STATUS_CODES[span.status?.code ?? 0]!,
            ...(span.status?.message ? { message: span.status.message } : {}),
          },
          attributes: record(span.attributes),
          ...(events.length > 0 ? { events } : {}),
        });
      }
  }
  return { spans, rejected };
}
