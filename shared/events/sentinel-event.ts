import { z } from 'zod';

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

/** `data` of a Sentinel cluster event: `{id, kind: "Cluster", href, generation}`. */
export const sentinelClusterDataSchema = z.looseObject({
  id: z
    .string()
    .min(1, 'data.id must not be empty')
    .max(253, 'data.id is longer than 253 characters'),
  kind: z.literal('Cluster', { message: 'data.kind must be "Cluster"' }).optional(),
  href: z.string().optional(),
  generation: z
    .number({ message: 'data.generation must be a number' })
    // Range first: 2^53 and beyond are not safe integers, and "must be at most" is the useful message.
    .min(1, 'data.generation must be >= 1')
    .max(INT32_MAX, `data.generation must be at most ${INT32_MAX}`)
    .refine(Number.isInteger, 'data.generation must be a whole number')
    .optional(),
});

/** A cluster event, decoded and validated. */
export interface ClusterEvent {
  readonly eventId: string;
  readonly type: string;
  readonly source: string;
  readonly clusterId: string;
  /** Absent only in older event shapes. */
  readonly generation?: number;
}
