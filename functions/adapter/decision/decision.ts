import type { ClusterEvent } from '../../../shared/events/sentinel-event';
import type { KeptConvergence, Operation, StatusOutcome } from '../../../shared/status/outcome';
import type { OwnStatus } from '../../../shared/status/own-status';
import type { DriftResult } from './drift-condition';
import type { ClusterFacts } from '../../../shared/hyperfleet/cluster-facts';

export type { ClusterFacts };
import type { PreconditionResult } from './preconditions';

/** Timing rules of the decision (from configuration). */
export interface DecisionSettings {
  /** Re-run a converged cluster this often (an unchanged run writes nothing). */
  readonly resyncIntervalMs: number;
  /** How long an execution may run, retries included, before it is presumed lost. */
  readonly executionTimeoutMs: number;
  readonly retryBackoffBaseMs: number;
  readonly retryBackoffMaxMs: number;
  /** A permanent failure at the same generation is retried this rarely (rights may have been fixed). */
  readonly permanentFailureRetryMs: number;
  /** An identical not-met or invalid-input report is not written again sooner than this. */
  readonly heartbeatMs: number;
  /** A running execution this old is looked up in Cloud Run (GetExecution) instead of waited for. */
  readonly executionCheckAfterMs: number;
  /** A queued launch this old is looked up in Cloud Tasks (GetTask): refused, waiting, or dispatched. */
  readonly launchCheckAfterMs: number;
  /**
   * A launch task dispatched this long ago whose execution never reported its start is presumed
   * lost (RunJob refused until the queue gave up, or the start report lost) and launched again.
   */
  readonly launchStartGraceMs: number;
  /**
   * Resyncs of clusters provisioned together are spread over this window (a per-cluster offset,
   * resync-spread.ts); absent or 0: no spread.
   */
  readonly resyncSpreadMs?: number;
  /**
   * A drift report is acted on only when our last report is at least this old: a report made
   * before our last write is not repaired again at once, and a drift nobody can repair costs at
   * most one execution per window. Absent: 0.
   */
  readonly driftRepairBackoffMs?: number;
}

export interface DecisionInput {
  readonly event: ClusterEvent;
  /** Undefined when the API answered 404. */
  readonly cluster: ClusterFacts | undefined;
  readonly own: OwnStatus | undefined;
  /** Evaluated only for clusters that are not being deleted. */
  readonly preconditions: PreconditionResult;
  /** DRIFT_REPORTED_CONDITION, evaluated for clusters that are not being deleted; absent: none. */
  readonly drift?: DriftResult;
  readonly settings: DecisionSettings;
  readonly now: Date;
  /**
   * A launch task or execution that Cloud Tasks or Cloud Run confirmed is not running: the
   * in-flight record naming it no longer holds the cluster.
   */
  readonly lost?: string;
}

export type SkipReason =
  | 'cluster-gone'
  | 'stale-event'
  | 'finalized'
  | 'up-to-date'
  | 'in-flight'
  | 'failed-permanently'
  | 'backing-off'
  | 'drift-repair-backoff'
  | 'background-deferred'
  | 'already-reported';

/**
 * Why a launch happens: no status yet, a new generation, the resync interval, a retry, or another
 * adapter reporting our pull secret missing or invalid (DRIFT_REPORTED_CONDITION).
 */
export type LaunchReason =
  'first-event' | 'new-generation' | 'resync' | 'retry' | 'drift-reported' | 'placement-changed';

/** What to do, always with a reason that is logged. */
export type Decision =
  | { readonly kind: 'skip'; readonly reason: SkipReason; readonly message: string }
  | { readonly kind: 'report'; readonly outcome: StatusOutcome; readonly message: string }
  | {
      /** Our launch has been queued longer than the check threshold: ask Cloud Tasks. */
      readonly kind: 'check-task';
      readonly task: string;
      readonly operation: Operation;
      readonly attempt: number;
      readonly queuedAt: string;
      readonly kept?: KeptConvergence;
      readonly message: string;
    }
  | {
      /** Our execution has been running longer than the check threshold: ask Cloud Run. */
      readonly kind: 'check-execution';
      readonly execution: string;
      readonly operation: Operation;
      readonly attempt: number;
      readonly launchedAt: string;
      readonly message: string;
    }
  | {
      readonly kind: 'launch';
      readonly operation: Operation;
      /** Why this launch, as a code for spans and metrics (the message says it in words). */
      readonly reason: LaunchReason;
      readonly attempt: number;
      readonly namespace: string;
      /** Placement's choice; absent: the job's DEFAULT_MANAGEMENT_CLUSTER. */
      readonly managementCluster?: string;
      readonly gcpProjectId: string;
      /**
       * A background run of a converged cluster (resync, drift repair, placement move): its rows
       * keep Available=True and the place data until it fails or succeeds.
       */
      readonly kept?: KeptConvergence;
      readonly message: string;
    };
