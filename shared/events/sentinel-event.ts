import * as z from 'zod';

/** Current Sentinel type, plus the older names the design documents used. */
export const CLUSTER_EVENT_TYPES = [
  'com.redhat.hyperfleet.cluster.reconcile',
  'com.redhat.hyperfleet.cluster.reconcile.v1',
  'cluster.create',
  'cluster.update',
  'cluster.delete',
  'com.redhat.hyperfleet.cluster.create',
  'com.redhat.hyperfleet.cluster.update',
  'com.redhat.hyperfleet.cluster.delete',
] as const;

/** Node pool events share the topic; this adapter acknowledges and ignores them. */
export const isNodePoolEventType = (type: string) => /nodepool/i.test(type);

const INT32_MAX = 2_147_483_647;

/**
 * Sentinel builds `data` from configurable expressions (`message_data`), so a generation can
 * arrive as a decimal string (`"5"`, from `string(resource.generation)` or a Go template), and a
 * field whose expression had no value as `null`. Both are read as what they mean; anything else
 * is refused with the field's path and what was expected.
 */
const generationSchema = z.preprocess(
  (value) => (typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value),
  z
    .number({ message: 'expected an integer >= 1 (a number or a decimal string such as "5")' })
    // Range first: 2^53 and beyond are not safe integers, and "must be at most" is the useful message.
    .min(1, 'must be >= 1')
    .max(INT32_MAX, `must be at most ${INT32_MAX}`)
    .refine(Number.isInteger, 'must be a whole number'),
);

/** Optional fields may be absent or null (both mean "not given"). */
const absentAsUndefined = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === null ? undefined : value), schema.optional());

/** `data` of a Sentinel cluster event: `{id, kind: "Cluster", href, generation}`. */
export const sentinelClusterDataSchema = z.looseObject(
  {
    id: z
      .string({ message: 'expected the cluster id (a non-empty string)' })
      .min(1, 'must not be empty (expected the cluster id)')
      .max(253, 'is longer than 253 characters'),
    kind: absentAsUndefined(z.literal('Cluster', { message: 'must be "Cluster"' })),
    href: absentAsUndefined(z.string({ message: 'expected a string (the cluster href)' })),
    generation: absentAsUndefined(generationSchema),
  },
  { message: 'expected an object {id, kind, href, generation}' },
);

/** A cluster event, decoded and validated. */
export interface ClusterEvent {
  readonly eventId: string;
  readonly type: string;
  readonly source: string;
  readonly clusterId: string;
  /** Absent only in older event shapes. */
  readonly generation?: number;
}
