import type { AdapterStatusRequest, ConditionRequest } from '../hyperfleet/schemas';
import type { StatusOutcome } from './outcome';
import { STATUS_TABLE, type ConditionCell, type OutcomeKind, type OutcomeOf } from './status-table';

export { shortName } from './status-table';

/** Our adapter name in the HyperFleet API: exactly `pullsecret`. */
export const ADAPTER_NAME = 'pullsecret';

/**
 * Builds the status body for an outcome, following the pattern table of the contract
 * (status-table.ts): every condition has a non-empty reason and message; Finalized is added while
 * deleting; `data` carries what the adapter needs to read back (execution, attempt, failure kind)
 * and what HyperShift needs (`pull_secret_name`).
 */
export function buildStatus(
  outcome: StatusOutcome,
  generation: number,
  observedTime: Date,
): AdapterStatusRequest {
  return {
    adapter: ADAPTER_NAME,
    observed_generation: generation,
    observed_time: observedTime.toISOString(),
    ...fromRow(outcome.kind, outcome, generation),
  };
}

/** The conditions, `data` and `metadata` of one outcome, from its row of the table. */
function fromRow<K extends OutcomeKind>(
  kind: K,
  outcome: OutcomeOf[K],
  generation: number,
): Pick<AdapterStatusRequest, 'conditions' | 'data' | 'metadata'> {
  const row = STATUS_TABLE[kind];
  const finalized = row.finalized?.(outcome);
  const data = row.data?.(outcome, generation);
  const metadata = row.metadata?.(outcome);
  return {
    conditions: [
      condition('Applied', row.applied(outcome)),
      condition('Available', row.available(outcome)),
      condition('Health', row.health(outcome)),
      ...(finalized ? [condition('Finalized', finalized)] : []),
    ],
    ...(data ? { data } : {}),
    ...(metadata ? { metadata } : {}),
  };
}

const condition = (type: string, [status, reason, message]: ConditionCell): ConditionRequest => ({
  type,
  status,
  reason,
  message,
});
