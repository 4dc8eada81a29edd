// What the API does with a valid PUT /statuses body once the cluster is found, in its order:
// 1. the discard rules (hyperfleet-api pkg/services/adapter_status_validation.go
//    validateAndClassifyAdapterStatus): a generation above the cluster's, a generation below the
//    stored one, or the stored generation with an EARLIER observed_time -> 204, nothing stored;
// 2. the mandatory conditions (same function, after the discards) -> 400;
// 3. Available=Unknown when a row exists -> 204;
// 4. the conditional upsert (pkg/dao/adapter_status.go Upsert): the row is updated only where
//    `observed_generation < new OR (observed_generation = new AND last_report_time < new)`; when
//    no row matches (the same generation and an EQUAL time) the stored row is answered, 201,
//    unchanged.
import type { StoredAdapterStatus, StoredCluster } from './model';
import { invalid } from './problem';
import type { StatusRequest } from './status-request';

const MANDATORY = ['Available', 'Applied', 'Health'] as const;

/** What the API does with a valid report: store it (201), answer the stored row (201), or drop it (204). */
export type StatusWrite =
  | { kind: 'store'; status: StoredAdapterStatus }
  | { kind: 'unchanged'; status: StoredAdapterStatus; cause: string }
  | { kind: 'discard'; cause: string };

/** The discard rules that run before anything else looks at the conditions, or undefined. */
function staleness(
  cluster: StoredCluster,
  request: StatusRequest,
  existing: StoredAdapterStatus | undefined,
): string | undefined {
  if (request.observed_generation > cluster.generation)
    return `observed_generation ${request.observed_generation} is newer than the cluster's generation ${cluster.generation}`;
  if (!existing) return undefined;
  if (request.observed_generation < existing.observed_generation)
    return `observed_generation ${request.observed_generation} is older than the stored ${existing.observed_generation}`;
  if (
    request.observed_generation === existing.observed_generation &&
    Date.parse(request.observed_time) < Date.parse(existing.last_report_time)
  )
    return 'observed_time is older than the stored report';
  return undefined;
}

/** The upsert's WHERE clause: a higher generation, or the same one with a strictly later time. */
function supersedes(request: StatusRequest, existing: StoredAdapterStatus): boolean {
  return (
    request.observed_generation > existing.observed_generation ||
    (request.observed_generation === existing.observed_generation &&
      Date.parse(request.observed_time) > Date.parse(existing.last_report_time))
  );
}

/**
 * Decides a report's fate and computes what is stored: `last_transition_time` survives while a
 * condition's status is unchanged (services/adapter_status.go setConditionTransitionTimes), and
 * `created_time` is the first report's observed_time (presenters ConvertAdapterStatus).
 */
export function decideStatusWrite(cluster: StoredCluster, request: StatusRequest): StatusWrite {
  const existing = cluster.statuses.get(request.adapter);
  const stale = staleness(cluster, request, existing);
  if (stale) return { kind: 'discard', cause: stale };
  const types = new Set(request.conditions.map((c) => c.type));
  const missing = MANDATORY.find((type) => !types.has(type));
  if (missing)
    throw invalid(
      `missing mandatory condition '${missing}': all adapters must report Available, Applied, and Health`,
    );
  if (existing && request.conditions.find((c) => c.type === 'Available')?.status === 'Unknown')
    return { kind: 'discard', cause: 'Available=Unknown after a first report' };
  if (existing && !supersedes(request, existing))
    return {
      kind: 'unchanged',
      status: existing,
      cause: 'observed_time equals the stored report: not stored, the stored row is answered',
    };
  const reportTime = request.observed_time;
  const conditions = request.conditions.map((condition) => {
    const previous = existing?.conditions.find((c) => c.type === condition.type);
    return {
      ...condition,
      last_transition_time:
        previous && previous.status === condition.status
          ? previous.last_transition_time
          : reportTime,
    };
  });
  return {
    kind: 'store',
    status: {
      adapter: request.adapter,
      observed_generation: request.observed_generation,
      observed_time: reportTime,
      conditions,
      data: request.data,
      ...(request.metadata ? { metadata: request.metadata } : {}),
      created_time: existing?.created_time ?? reportTime,
      last_report_time: reportTime,
    },
  };
}
