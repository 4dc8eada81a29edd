import type { AdapterStatusRequest } from '../hyperfleet/schemas';

/**
 * The fields a status write's log line carries (the adapter's and the reporter's alike), which
 * log-based metrics read: `reason` (the Available condition's), and for a failure `health_reason`
 * (Health=False's reason, also when a background run keeps Available=True) and `failure_kind`
 * (`permanent` or `transient`, as the status data says it). Reason codes and kinds only, a few
 * values each: bounded metric labels.
 */
export function statusWriteFields(body: AdapterStatusRequest): {
  readonly reason?: string;
  readonly health_reason?: string;
  readonly failure_kind?: string;
} {
  const available = body.conditions.find((c) => c.type === 'Available');
  const health = body.conditions.find((c) => c.type === 'Health');
  const kind = body.data?.failure_kind;
  return {
    ...(available?.reason ? { reason: available.reason } : {}),
    ...(health?.status === 'False' && health.reason ? { health_reason: health.reason } : {}),
    ...(typeof kind === 'string' ? { failure_kind: kind } : {}),
  };
}
