import type { PutStatusOutcome } from '../../../shared/hyperfleet/client';
import type { HyperFleetApi } from '../../../shared/hyperfleet/port';
import type { AdapterStatusRequest } from '../../../shared/hyperfleet/schemas';
import type { Logger } from '../../../shared/logging/logger';

/** Writes our status and logs what the API did with it (stored, or discarded as older). */
export async function reportStatus(
  hyperfleet: HyperFleetApi,
  log: Logger,
  clusterId: string,
  body: AdapterStatusRequest,
): Promise<PutStatusOutcome> {
  const outcome = await hyperfleet.putStatus(clusterId, body);
  const available = body.conditions.find((c) => c.type === 'Available');
  log.info(
    `Status ${outcome}: Available=${available?.status ?? '?'} (${available?.reason ?? '?'})`,
    { status_write: outcome, reason: available?.reason, generation: body.observed_generation },
  );
  return outcome;
}

// The API accepts observed_time up to 30 minutes in the past.
const PAST_WINDOW_MS = 29 * 60_000;

/**
 * The observed_time of a state the adapter read from Cloud Run just now: when that state came
 * about (so a later, more specific report still wins), or now when that moment is outside the
 * API's window (the state is re-derived from Cloud Run now, not an old report squeezed in).
 */
export function observedAt(moment: string, now: Date): Date {
  const at = Date.parse(moment);
  return Number.isFinite(at) && at >= now.getTime() - PAST_WINDOW_MS && at <= now.getTime()
    ? new Date(at)
    : now;
}
