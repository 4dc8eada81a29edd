import * as z from 'zod';
import type { AdapterStatus, ConditionStatus } from '../hyperfleet/schemas';
import { ADAPTER_NAME } from './status-builder';

/** The `data` our own reports carry, read back by the adapter to decide (tolerant of absence). */
export const pullSecretStatusDataSchema = z.looseObject({
  execution: z.string().optional(),
  /** The launch this status belongs to (passed to the execution as LAUNCH_ID). */
  launch_id: z.string().optional(),
  /** The launching instance gave up; nobody is launching `launch_id` any more. */
  launch_abandoned: z.boolean().optional(),
  operation: z.enum(['apply', 'delete']).optional(),
  launched_at: z.string().optional(),
  /** Why the running launch was made (first-event, new-generation, resync, retry, drift-reported). */
  launch_reason: z.string().optional(),
  attempt: z.number().int().optional(),
  failure_kind: z.enum(['permanent', 'transient']).optional(),
  reason: z.string().optional(),
  precondition: z.string().optional(),
});

export type PullSecretStatusData = z.infer<typeof pullSecretStatusDataSchema>;

/** Our previous report, as the decision needs it. */
export interface OwnStatus {
  readonly observedGeneration: number;
  readonly lastReportTime?: string;
  readonly available?: ConditionStatus;
  readonly availableReason?: string;
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
      ? { available: find('Available')!.status, availableReason: find('Available')!.reason ?? '' }
      : {}),
    ...(find('Health') ? { health: find('Health')!.status } : {}),
    ...(find('Finalized') ? { finalized: find('Finalized')!.status } : {}),
    data: data.success ? data.data : {},
  };
}
