import type { StatusOutcome } from './outcome';

/** A status to write: for which cluster and generation, and when it was observed. */
export interface PlannedReport {
  readonly clusterId: string;
  readonly generation: number;
  readonly outcome: StatusOutcome;
  readonly observedAt: string;
}

/**
 * Nothing to report, and why; `decision` marks executions that stood aside and executions that cannot be attributed
 * to a cluster in the logs; `severity` `warn` for what an operator should see.
 */
export interface SkippedReport {
  readonly skip: string;
  readonly decision?: 'stood-aside' | 'execution-unattributed';
  readonly severity?: 'info' | 'warn';
}
