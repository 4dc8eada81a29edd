import type { HyperFleetApi } from '../../../shared/hyperfleet/port';
import type { Logger } from '../../../shared/logging/logger';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import type { ExecutionLookup } from '../cloud-run/execution-lookup';
import type { JobLauncher } from '../cloud-run/job-launcher';
import type { LaunchRate } from '../cloud-run/launch-rate';
import type { DecisionSettings } from '../decision/decision';
import type { PullSecretSettings } from '../decision/pull-secret-reference';
import type { CompiledPrecondition } from '../decision/preconditions';
import type { CompiledDriftCondition } from '../decision/drift-condition';

/** What the handler needs; the entry file builds it once per instance. */
export interface AdapterDependencies {
  readonly hyperfleet: HyperFleetApi;
  readonly launcher: JobLauncher;
  /** Cloud Run reads, off the happy path: ambiguous launches and long-silent executions. */
  readonly lookup: ExecutionLookup;
  /** In-process attempts of RunJob, each failure followed by a search for the execution. */
  readonly launchRetry: RetryPolicy;
  readonly preconditions: readonly CompiledPrecondition[];
  /** DRIFT_REPORTED_CONDITION; absent: drift reports are not acted on (only the resync repairs). */
  readonly driftCondition?: CompiledDriftCondition;
  readonly settings: DecisionSettings;
  readonly pullSecret: PullSecretSettings;
  /** MANAGEMENT_NAMESPACE_TEMPLATE; `clusters-{id}` when absent. */
  readonly namespaceTemplate?: string;
  readonly logger: Logger;
  readonly now?: () => Date;
  /** Injectable for tests; a random UUID per launch otherwise. */
  readonly newLaunchId?: () => string;
  /**
   * How long a written launch intent settles before it is read back (LAUNCH_SETTLE_INTERVAL): an
   * instance launches only if its intent is still the stored one after it. 0 reads back at once.
   */
  readonly launchSettleMs?: number;
  /** This instance's share of the region's RunJob quota (launch-rate.ts); absent: no limit. */
  readonly launchRate?: LaunchRate;
  /** How long a launch may wait for a token within a delivery (LAUNCH_RATE_MAX_WAIT); 0: none. */
  readonly launchRateMaxWaitMs?: number;
  /** Injectable for tests (the settle wait); a timer otherwise. */
  readonly sleep?: (ms: number) => Promise<void>;
}
