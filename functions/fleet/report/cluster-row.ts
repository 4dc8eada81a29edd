import type { AdapterStatus, Cluster, ConditionStatus } from '../../../shared/hyperfleet/schemas';
import { pullSecretStatusDataSchema } from '../../../shared/status/own-status';
import { convergenceOf, type FleetState } from '../../../shared/status/convergence';
import { ADAPTER_NAME } from '../../../shared/status/status-builder';

export interface ConditionCell {
  readonly status: ConditionStatus;
  readonly reason?: string;
}

/** One line of the report: only identifiers, states and times; never secret material. */
export interface FleetRow {
  readonly id: string;
  readonly name: string;
  readonly generation: number;
  readonly deleting: boolean;
  readonly state: FleetState;
  readonly available?: ConditionCell;
  readonly health?: ConditionCell;
  readonly applied_reason?: string;
  readonly failure_kind?: 'permanent' | 'transient';
  readonly pull_secret_source?: string;
  /** The platform default's version number the cluster's pull secret came from (the status's `default_version`). */
  readonly default_version?: string;
  /** At most FINGERPRINT_LENGTH hex characters, whatever the status carries. */
  readonly pull_secret_sha256_prefix?: string;
  readonly management_cluster?: string;
  readonly namespace?: string;
  readonly observed_generation?: number;
  readonly last_report_time?: string;
  /** Since when the cluster has waited to converge at its generation (absent when converged). */
  readonly waiting_since?: string;
  /** Whole seconds from `waiting_since` to the report's time. */
  readonly waiting_seconds?: number;
  /** Waiting longer than the report's threshold. */
  readonly not_converged: boolean;
  /** Waiting longer than the threshold in `preconditions-not-met`. */
  readonly stuck_preconditions: boolean;
  /** Health=False with `failure_kind: permanent` at the current generation. */
  readonly permanent_failure: boolean;
}

/** The job's fingerprint length (shared/pull-secret/fingerprint.ts): more would be more of the hash. */
export const FINGERPRINT_LENGTH = 12;

/** Hex only, cut to the prefix length: a longer value (a whole hash) is never printed whole. */
function fingerprintPrefix(value: unknown): string | undefined {
  if (typeof value !== 'string' || !/^[0-9a-f]+$/i.test(value)) return undefined;
  return value.slice(0, FINGERPRINT_LENGTH).toLowerCase();
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** A version number as the job reports it; anything else is not copied. */
const versionNumber = (value: unknown): string | undefined =>
  typeof value === 'string' && /^[1-9][0-9]{0,15}$/.test(value) ? value : undefined;

function cell(status: AdapterStatus | undefined, type: string): ConditionCell | undefined {
  const found = status?.conditions.find((c) => c.type === type);
  if (!found) return undefined;
  return { status: found.status, ...(found.reason ? { reason: found.reason } : {}) };
}

/**
 * A cluster's row from the cluster and every adapter's statuses (only `pullsecret`'s is read),
 * at `now`, with `thresholdMs` for "not converged". Pure. Only named, non-secret fields of the
 * status data are copied: whatever else a status carries never reaches the report.
 */
export function clusterRow(
  cluster: Cluster,
  statuses: readonly AdapterStatus[],
  now: Date,
  thresholdMs: number,
): FleetRow {
  const own = statuses.find((s) => s.adapter === ADAPTER_NAME);
  const deleting = Boolean(cluster.deleted_time);
  const { state, current, waitingSince: since, waitingMs } = convergenceOf(cluster, statuses, now);
  const parsed = pullSecretStatusDataSchema.safeParse(own?.data ?? {});
  const data = parsed.success ? parsed.data : {};
  const raw = own?.data ?? {};
  const health = cell(own, 'Health');
  const permanent = current && health?.status === 'False' && data.failure_kind === 'permanent';
  const late = waitingMs !== undefined && waitingMs > thresholdMs;
  const optional = {
    available: cell(own, 'Available'),
    health,
    applied_reason: cell(own, 'Applied')?.reason,
    failure_kind: data.failure_kind,
    pull_secret_source: text(raw.pull_secret_source),
    default_version: versionNumber(raw.default_version),
    pull_secret_sha256_prefix: fingerprintPrefix(raw.pull_secret_sha256_prefix),
    management_cluster: text(raw.management_cluster),
    namespace: text(raw.namespace),
    observed_generation: own?.observed_generation,
    last_report_time: text(own?.last_report_time),
    waiting_since: since,
    waiting_seconds: waitingMs === undefined ? undefined : Math.floor(waitingMs / 1000),
  };
  return {
    id: cluster.id,
    name: cluster.name,
    generation: cluster.generation,
    deleting,
    state,
    ...(Object.fromEntries(
      Object.entries(optional).filter(([, value]) => value !== undefined),
    ) as Partial<FleetRow>),
    not_converged: late,
    stuck_preconditions: late && state === 'preconditions-not-met',
    permanent_failure: permanent,
  };
}
