import { z } from 'zod';

/** Condition status values of the HyperFleet API. */
export const conditionStatusSchema = z.enum(['True', 'False', 'Unknown']);
export type ConditionStatus = z.infer<typeof conditionStatusSchema>;

const INT32_MAX = 2_147_483_647;
const generationSchema = z.number().int().min(1).max(INT32_MAX);

/** A cluster condition (ResourceCondition). */
export const clusterConditionSchema = z.looseObject({
  type: z.string(),
  status: conditionStatusSchema,
  reason: z.string().optional(),
  message: z.string().optional(),
  observed_generation: z.number().int().optional(),
  last_updated_time: z.string().optional(),
  last_transition_time: z.string().optional(),
});
export type ClusterCondition = z.infer<typeof clusterConditionSchema>;

/** GET /clusters/{id}: only what the adapter relies on is checked; the rest passes through. */
export const clusterSchema = z.looseObject({
  id: z.string().min(1),
  kind: z.string().optional(),
  name: z.string(),
  href: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  generation: generationSchema,
  spec: z.record(z.string(), z.unknown()),
  deleted_time: z.string().nullish(),
  status: z.looseObject({ conditions: z.array(clusterConditionSchema) }).optional(),
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
  reason: z.string().optional(),
  message: z.string().optional(),
  last_transition_time: z.string().optional(),
});

/** One adapter's status on a cluster (AdapterStatus). */
export const adapterStatusSchema = z.looseObject({
  adapter: z.string(),
  observed_generation: z.number().int(),
  conditions: z.array(adapterConditionSchema),
  data: z.record(z.string(), z.unknown()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  created_time: z.string().optional(),
  last_report_time: z.string().optional(),
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
});
