import type { AdapterStatus, Cluster } from '../hyperfleet/schemas';
import { ADAPTER_NAME } from './status-builder';

/**
 * One cluster's convergence as our `pullsecret` status says it, the first that applies:
 * - `converged`: our status is at the cluster's generation and says Available=True (a deleting
 *   cluster: Finalized=True), whatever a background run says in Health;
 * - `pending`: no `pullsecret` status at the current generation yet (none at all, or an older one);
 * - `preconditions-not-met`: Available=False `PreconditionsNotMet` (waiting for another adapter);
 * - `queued` / `running`: a launch waits in the queue (`JobQueued`) / an execution started (`JobLaunched`);
 * - `failed`: Health=False at the current generation (transient or permanent);
 * - `not-available`: any other Available=False or Unknown.
 *
 * One definition for the fleet report (functions/fleet/report/) and the adapter's decision log
 * line (its `waiting` and `waiting_seconds` fields, which the fleet alerts count), so an alert and
 * the report it sends the operator to agree on which clusters wait, and since when.
 */
export type FleetState =
  | 'converged'
  | 'pending'
  | 'preconditions-not-met'
  | 'queued'
  | 'running'
  | 'failed'
  | 'not-available';

export const FLEET_STATES: readonly FleetState[] = [
  'converged',
  'pending',
  'preconditions-not-met',
  'queued',
  'running',
  'failed',
  'not-available',
];

export interface Convergence {
  readonly state: FleetState;
  /** Our status is at the cluster's generation. */
  readonly current: boolean;
  /** Since when the cluster has waited to converge at its generation (absent when converged). */
  readonly waitingSince?: string;
  /** Milliseconds from `waitingSince` to `now` (never negative). */
  readonly waitingMs?: number;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

const condition = (status: AdapterStatus | undefined, type: string) =>
  status?.conditions.find((c) => c.type === type);

function stateOf(
  cluster: Cluster,
  own: AdapterStatus | undefined,
  deleting: boolean,
): { state: FleetState; current: boolean } {
  const current = own !== undefined && own.observed_generation === cluster.generation;
  if (!own || !current) return { state: 'pending', current };
  if (condition(own, deleting ? 'Finalized' : 'Available')?.status === 'True')
    return { state: 'converged', current };
  const applied = condition(own, 'Applied')?.reason;
  if (condition(own, 'Available')?.reason === 'PreconditionsNotMet')
    return { state: 'preconditions-not-met', current };
  if (applied === 'JobQueued') return { state: 'queued', current };
  if (applied === 'JobLaunched') return { state: 'running', current };
  if (condition(own, 'Health')?.status === 'False') return { state: 'failed', current };
  return { state: 'not-available', current };
}

/**
 * When the cluster began waiting to converge at its generation: the later of the generation's
 * start and, when our status is at this generation, the last change of its Available (or, while
 * deleting, Finalized) condition. HyperFleet keeps no time per generation; the cluster's
 * `updated_time` moves with every change that bumps the generation (spec, labels, deletion), so
 * it is the generation's start, or later on an API that moves it for other writes too: the wait
 * then reads shorter than it is, never longer (no false alarm). Without it, `created_time`.
 * A cluster that converged at this generation and lost it (a failed drift repair) waits from then.
 */
function waitingSince(
  cluster: Cluster,
  own: AdapterStatus | undefined,
  current: boolean,
  deleting: boolean,
): string | undefined {
  const times: number[] = [];
  const start = text(cluster.updated_time) ?? text(cluster.created_time);
  if (start && Number.isFinite(Date.parse(start))) times.push(Date.parse(start));
  if (current) {
    const changed = condition(own, deleting ? 'Finalized' : 'Available')?.last_transition_time;
    if (changed && Number.isFinite(Date.parse(changed))) times.push(Date.parse(changed));
  }
  return times.length > 0 ? new Date(Math.max(...times)).toISOString() : undefined;
}

/** A cluster's convergence from the cluster and every adapter's statuses (only ours is read), at `now`. Pure. */
export function convergenceOf(
  cluster: Cluster,
  statuses: readonly AdapterStatus[],
  now: Date,
): Convergence {
  const own = statuses.find((s) => s.adapter === ADAPTER_NAME);
  const deleting = Boolean(cluster.deleted_time);
  const { state, current } = stateOf(cluster, own, deleting);
  const since = state === 'converged' ? undefined : waitingSince(cluster, own, current, deleting);
  return {
    state,
    current,
    ...(since
      ? { waitingSince: since, waitingMs: Math.max(0, now.getTime() - Date.parse(since)) }
      : {}),
  };
}
