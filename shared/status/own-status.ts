import * as z from 'zod';
import type { AdapterStatus, ConditionStatus } from '../hyperfleet/schemas';
import type { KeptConvergence } from './outcome';
import { ADAPTER_NAME } from './status-builder';
import { PLACE_DATA_KEYS } from './status-table';

/** The `data` our own reports carry, read back by the adapter to decide (tolerant of absence). */
export const pullSecretStatusDataSchema = z.looseObject({
  execution: z.string().optional(),
  /** The Cloud Tasks task of the launch this status belongs to (its name is the launch's identity). */
  task: z.string().optional(),
  operation: z.enum(['apply', 'delete']).optional(),
  launched_at: z.string().optional(),
  /** Why the running launch was made (first-event, new-generation, resync, retry, drift-reported). */
  launch_reason: z.string().optional(),
  attempt: z.number().int().optional(),
  failure_kind: z.enum(['permanent', 'transient']).optional(),
  reason: z.string().optional(),
  precondition: z.string().optional(),
  /** A namespace layout migration kept a copy there (status-table.ts, kubernetesSecretData). */
  previous_layout_namespace: z.string().optional(),
});

export type PullSecretStatusData = z.infer<typeof pullSecretStatusDataSchema>;

/** Our previous report, as the decision needs it. */
export interface OwnStatus {
  readonly observedGeneration: number;
  readonly lastReportTime?: string;
  readonly available?: ConditionStatus;
  readonly availableReason?: string;
  readonly availableMessage?: string;
  /** `JobQueued` or `JobLaunched` while a run is under way (status-table.ts). */
  readonly appliedReason?: string;
  readonly health?: ConditionStatus;
  readonly finalized?: ConditionStatus;
  readonly data: PullSecretStatusData;
}

/** Finds and reads the `pullsecret` status among all statuses. */
export function readOwnStatus(statuses: readonly AdapterStatus[]): OwnStatus | undefined {
  const own = statuses.find((s) => s.adapter === ADAPTER_NAME);
  if (!own) return undefined;
  const find = (type: string) => own.conditions.find((c) => c.type === type);
  const data = pullSecretStatusDataSchema.safeParse(own.data ?? {});
  return {
    observedGeneration: own.observed_generation,
    ...(own.last_report_time ? { lastReportTime: own.last_report_time } : {}),
    ...(find('Available')
      ? {
          available: find('Available')!.status,
          availableReason: find('Available')!.reason ?? '',
          availableMessage: find('Available')!.message ?? '',
        }
      : {}),
    ...(find('Applied') ? { appliedReason: find('Applied')!.reason ?? '' } : {}),
    ...(find('Health') ? { health: find('Health')!.status } : {}),
    ...(find('Finalized') ? { finalized: find('Finalized')!.status } : {}),
    data: data.success ? data.data : {},
  };
}

/** Applied reasons of a run under way: queued in Cloud Tasks, or started by Cloud Run. */
export const IN_FLIGHT_REASONS: ReadonlySet<string> = new Set(['JobQueued', 'JobLaunched']);

/**
 * What a background run keeps of a converged status (Available=True at this generation), or
 * undefined when it is not converged: the run's rows then say Available=False as any launch does.
 */
export function keptConvergence(own: OwnStatus | undefined): KeptConvergence | undefined {
  if (own?.available !== 'True') return undefined;
  const data: Record<string, unknown> = {};
  for (const key of PLACE_DATA_KEYS) if (own.data[key] !== undefined) data[key] = own.data[key];
  return {
    reason: own.availableReason || 'PullSecretProvisioned',
    message: own.availableMessage || 'The pull secret is provisioned',
    data,
  };
}
