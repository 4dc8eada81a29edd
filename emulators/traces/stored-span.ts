import * as z from 'zod';

/** OTLP's span kinds by their enum number (opentelemetry/proto/trace/v1/trace.proto). */
export const SPAN_KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];
/** OTLP's status codes by their enum number. */
export const STATUS_CODES = ['UNSET', 'OK', 'ERROR'];

/** An attribute value as stored: OTLP's AnyValue turned into plain JSON. */
export type AttributeValue =
  string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };

const attributeValueSchema: z.ZodType<AttributeValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(attributeValueSchema),
    z.record(z.string(), attributeValueSchema),
  ]),
);

/**
 * One span as the local store keeps it: flattened from OTLP (one JSON line each), with the
 * resource's `service.name` beside it, so a trace file reads without its export requests.
 * Times stay nanosecond decimal strings: OTLP's int64, which a JS number cannot hold exactly.
 */
export const storedSpanSchema = z.object({
  traceId: z.string().regex(/^[0-9a-f]{32}$/),
  spanId: z.string().regex(/^[0-9a-f]{16}$/),
  parentSpanId: z
    .string()
    .regex(/^[0-9a-f]{16}$/)
    .optional(),
  name: z.string(),
  kind: z.string(),
  service: z.string(),
  startUnixNano: z.string().regex(/^\d+$/),
  endUnixNano: z.string().regex(/^\d+$/),
  status: z.object({ code: z.string(), message: z.string().optional() }),
  attributes: z.record(z.string(), attributeValueSchema),
  events: z
    .array(
      z.object({
        name: z.string(),
        timeUnixNano: z.string(),
        attributes: z.record(z.string(), attributeValueSchema),
      }),
    )
    .optional(),
});
export type StoredSpan = z.output<typeof storedSpanSchema>;

/** The attribute that ties a span to a HyperFleet cluster (the contract's TRACE_ATTRIBUTES.clusterId). */
export const CLUSTER_ID_ATTRIBUTE = 'hyperfleet.cluster.id';

/** A cluster id safe to use as a file name (the index is one file per cluster). */
export function isIndexableClusterId(id: unknown): id is string {
  return typeof id === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(id);
}

/** One line of a cluster's index: a span of some trace carried the cluster id. */
export const clusterIndexEntrySchema = z.object({
  traceId: z.string().regex(/^[0-9a-f]{32}$/),
  spanId: z.string(),
  name: z.string(),
  service: z.string(),
  startUnixNano: z.string().regex(/^\d+$/),
});
export type ClusterIndexEntry = z.output<typeof clusterIndexEntrySchema>;
