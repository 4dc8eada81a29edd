import * as z from 'zod';

/** Condition status values of the HyperFleet API. */
export const conditionStatusSchema = z.enum(['True', 'False', 'Unknown']);
export type ConditionStatus = z.infer<typeof conditionStatusSchema>;

const INT32_MAX = 2_147_483_647;

/**
 * An optional field the API may also send as JSON null: the Go API marshals a nil map or pointer
 * as `null` (e.g. `data` of an adapter that sent none). Null reads as absent.
 */
const nullable = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === null ? undefined : value), schema.optional());
const generationSchema = z.number().int().min(1).max(INT32_MAX);

/** A cluster condition (ResourceCondition). */
export const clusterConditionSchema = z.looseObject({
  type: z.string(),
  status: conditionStatusSchema,
  reason: nullable(z.string()),
  message: nullable(z.string()),
  observed_generation: nullable(z.number().int()),
  last_updated_time: nullable(z.string()),
  last_transition_time: nullable(z.string()),
});
export type ClusterCondition = z.infer<typeof clusterConditionSchema>;

/** GET /clusters/{id}: only what the adapter relies on is checked; the rest passes through. */
export const clusterSchema = z.looseObject({
  id: z.string().min(1),
  kind: nullable(z.string()),
  name: z.string(),
  href: nullable(z.string()),
  labels: nullable(z.record(z.string(), z.string())),
  generation: generationSchema,
  spec: z.record(z.string(), z.unknown()),
  deleted_time: z.string().nullish(),
  status: nullable(
    z.looseObject({
      conditions: z.preprocess((value) => value ?? [], z.array(clusterConditionSchema)),
    }),
  ),
});
export type Cluster = z.infer<typeof clusterSchema>;

export const clusterListSchema = z.looseObject({
  page: z.number().int(),
  size: z.number().int(),
  total: z.number().int(),
  items: z.array(clusterSchema),
});
export type ClusterList = z.infer<typeof clusterListSchema>;

/** An adapter condition as stored by the API. */
export const adapterConditionSchema = z.looseObject({
  type: z.string(),
  status: conditionStatusSchema,
  reason: nullable(z.string()),
  message: nullable(z.string()),
  last_transition_time: nullable(z.string()),
});

/** One adapter's status on a cluster (AdapterStatus). */
export const adapterStatusSchema = z.looseObject({
  adapter: z.string(),
  observed_generation: z.number().int(),
  conditions: z.preprocess((value) => value ?? [], z.array(adapterConditionSchema)),
  data: nullable(z.record(z.string(), z.unknown())),
  metadata: nullable(z.record(z.string(), z.unknown())),
  created_time: nullable(z.string()),
  last_report_time: nullable(z.string()),
});
export type AdapterStatus = z.infer<typeof adapterStatusSchema>;

export const adapterStatusListSchema = z.looseObject({
  page: z.number().int(),
  size: z.number().int(),
  total: z.number().int(),
  items: z.array(adapterStatusSchema),
});

/** A condition in a status report; `last_transition_time` is never sent (the API manages it). */
export interface ConditionRequest {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message: string;
}

/** PUT /clusters/{id}/statuses body (AdapterStatusCreateRequest). */
export interface AdapterStatusRequest {
  readonly adapter: string;
  readonly observed_generation: number;
  readonly observed_time: string;
  readonly conditions: readonly ConditionRequest[];
  readonly data?: Readonly<Record<string, unknown>>;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** RFC 9457 problem details, as far as the client reads them. */
export const problemSchema = z.looseObject({
  type: z.string().optional(),
  title: z.string().optional(),
  status: z.number().optional(),
  detail: z.string().optional(),
  code: z.string().optional(),
  trace_id: z.string().optional(),
});
