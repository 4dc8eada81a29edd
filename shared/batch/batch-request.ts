import * as z from 'zod';

// A batch: one Cloud Run Job execution that re-applies many clusters, its tasks sharing them out
// (CLOUD_RUN_TASK_INDEX of CLOUD_RUN_TASK_COUNT). Rotations of the platform default pull secret,
// resyncs on demand and the daily resync go this way, so their cost is a few executions a day
// rather than one per cluster (docs/operations.md, "Rotating the default pull secret"). The request travels
// from the fleet command or Secret Manager's notification to the adapter (a Pub/Sub message), and
// from the adapter to the job (env overrides of one RunJob): both ends parse it here.

/** Which clusters a batch re-applies. Only converged clusters are touched (the rest are in the adapter's hands). */
export type BatchSelector =
  | { readonly kind: 'all' }
  /** Clusters using the platform default pull secret (none in their spec). */
  | { readonly kind: 'default' }
  /** Clusters our status says are placed on this management cluster (after an etcd restore). */
  | { readonly kind: 'management-cluster'; readonly name: string }
  | { readonly kind: 'clusters'; readonly ids: readonly string[] };

/** Why: `rotation` (a new default version), `resync` (the operator, or the daily schedule). */
export const BATCH_REASONS = ['rotation', 'resync'] as const;
export type BatchReason = (typeof BATCH_REASONS)[number];

/** HyperFleet cluster ids are UUIDs or KSUID-like lowercase ids: letters, digits and '-'. */
const CLUSTER_ID = /^[a-z0-9]([a-z0-9-]{0,62})$/;
/** A management cluster name as MANAGEMENT_CLUSTERS keys it (a DNS label). */
const MANAGEMENT_CLUSTER = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
/** One RunJob's env override is capped (32 KiB); 200 ids stay far below it. */
export const MAX_BATCH_CLUSTER_IDS = 200;

/**
 * The selector's text form (BATCH_SELECTOR, and the fleet command's): `all`, `default`,
 * `management-cluster=NAME` or `clusters=ID[,ID...]`. Returns a problem in words when malformed.
 */
export function parseBatchSelector(text: string): BatchSelector | { readonly problem: string } {
  if (text === 'all') return { kind: 'all' };
  if (text === 'default') return { kind: 'default' };
  const [key, value, ...rest] = text.split('=');
  if (rest.length === 0 && key === 'management-cluster' && value !== undefined) {
    return MANAGEMENT_CLUSTER.test(value)
      ? { kind: 'management-cluster', name: value }
      : { problem: `management cluster name "${value.slice(0, 70)}" is not a DNS label` };
  }
  if (rest.length === 0 && key === 'clusters' && value !== undefined) {
    const ids = value.split(',');
    const bad = ids.find((id) => !CLUSTER_ID.test(id));
    if (bad !== undefined)
      return {
        problem: `cluster id "${bad.slice(0, 70)}" is not a cluster id (lowercase letters, digits and "-")`,
      };
    if (ids.length > MAX_BATCH_CLUSTER_IDS)
      return {
        problem: `${ids.length} cluster ids: at most ${MAX_BATCH_CLUSTER_IDS} in one request (use --all, --default or --management-cluster for more)`,
      };
    return { kind: 'clusters', ids: [...new Set(ids)] };
  }
  return {
    problem: `"${text.slice(0, 70)}" is not a selector: use all, default, management-cluster=NAME or clusters=ID[,ID...]`,
  };
}

export function selectorText(selector: BatchSelector): string {
  switch (selector.kind) {
    case 'all':
    case 'default':
      return selector.kind;
    case 'management-cluster':
      return `management-cluster=${selector.name}`;
    case 'clusters':
      return `clusters=${selector.ids.join(',')}`;
  }
}

/** A zod schema of the selector's text form, for env and message boundaries. */
export const batchSelectorSchema = z.string().transform((text, ctx) => {
  const parsed = parseBatchSelector(text);
  if ('problem' in parsed) {
    ctx.addIssue({ code: 'custom', message: parsed.problem });
    return z.NEVER;
  }
  return parsed;
});

/**
 * A resync request, published to the fleet-requests topic (the message body) by the fleet command
 * or, daily, by Cloud Scheduler. The adapter names its launch task after the Pub/Sub message's id,
 * so a redelivered request launches once and each publish is a request of its own.
 */
export const resyncRequestSchema = z.strictObject({
  kind: z.literal('resync'),
  selector: batchSelectorSchema,
  requested_at: z.iso.datetime({ offset: true }).optional(),
  /** Who asked (the operator's account as the command knows it), for the log; never trusted. */
  requested_by: z.string().max(200).optional(),
});
export type ResyncRequest = z.infer<typeof resyncRequestSchema>;

/** The Pub/Sub attribute that marks a fleet command's request (Secret Manager's carry `eventType`). */
export const FLEET_REQUEST_ATTRIBUTE = 'hyperfleetFleetRequest';
