import type { PutStatusOutcome } from '../../../shared/hyperfleet/client';
import type { HyperFleetApi } from '../../../shared/hyperfleet/port';
import type { AdapterStatusRequest } from '../../../shared/hyperfleet/schemas';
import type { Logger } from '../../../shared/logging/logger';
import type { StatusOutcome } from '../../../shared/status/outcome';
import {
  nextObservedTime,
  OBSERVED_TIME_PAST_WINDOW_MS,
} from '../../../shared/status/report-clock';
import { buildStatus } from '../../../shared/status/status-builder';
import { statusWriteFields } from '../../../shared/status/status-write-fields';

/** Writes our status and logs what the API did with it (stored, discarded, or kept unchanged). */
export async function reportStatus(
  hyperfleet: HyperFleetApi,
  log: Logger,
  clusterId: string,
  body: AdapterStatusRequest,
): Promise<PutStatusOutcome> {
  const outcome = await hyperfleet.putStatus(clusterId, body);
  const available = body.conditions.find((c) => c.type === 'Available');
  const fields = {
    status_write: outcome,
    ...statusWriteFields(body),
    generation: body.observed_generation,
  };
  const text = `Status ${outcome}: Available=${available?.status ?? '?'} (${available?.reason ?? '?'})`;
  // Not stored although nothing newer should exist: another writer raced us; say so.
  if (outcome === 'unchanged')
    log.warn(`${text}; the API kept a report of the same moment`, fields);
  else log.info(text, fields);
  return outcome;
}

/**
 * One reconcile's status writes for a cluster at one generation: each write takes its own
 * observed_time, strictly later than our last report read at the start and than every write before
 * it in this reconcile (report-clock.ts), taken when it is written, never the decision's moment.
 */
export class StatusWriter {
  private last: string | Date | undefined;

  constructor(
    private readonly hyperfleet: HyperFleetApi,
    private readonly log: Logger,
    private readonly clusterId: string,
    private readonly generation: number,
    lastReportTime: string | undefined,
    private readonly now: () => Date,
  ) {
    this.last = lastReportTime;
  }

  /** The moment the next write will carry (for outcomes that record it, e.g. `since`). */
  nextTime(): Date {
    return nextObservedTime(this.now(), this.last);
  }

  /** Writes `outcome` at `at` (default: the next moment) and its generation (default: ours). */
  async write(
    outcome: StatusOutcome,
    options: { at?: Date; generation?: number } = {},
  ): Promise<PutStatusOutcome> {
    const at = nextObservedTime(options.at ?? this.now(), this.last);
    this.last = at;
    return reportStatus(
      this.hyperfleet,
      this.log,
      this.clusterId,
      buildStatus(outcome, options.generation ?? this.generation, at),
    );
  }
}

/**
 * The observed_time of a state the adapter read from Cloud Run just now: when that state came
 * about (so a later, more specific report still wins), or now when that moment is outside the
 * API's window (the state is re-derived from Cloud Run now, not an old report squeezed in).
 */
export function observedAt(moment: string, now: Date): Date {
  const at = Date.parse(moment);
  return Number.isFinite(at) &&
    at >= now.getTime() - OBSERVED_TIME_PAST_WINDOW_MS &&
    at <= now.getTime()
    ? new Date(at)
    : now;
}
