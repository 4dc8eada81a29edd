/** What `pullsecret` reports, before it becomes conditions. One per situation of the contract. */
export type StatusOutcome =
  | {
      readonly kind: 'not-met';
      readonly precondition: string;
      readonly message: string;
      /** The generation's last launch attempt, kept so a later launch takes a higher one. */
      readonly attempt?: number;
    }
  | { readonly kind: 'precondition-error'; readonly message: string; readonly attempt?: number }
  | {
      /**
       * The launch is in the queue (Cloud Tasks holds it until it dispatches RunJob): written after
       * CreateTask answered, or after ALREADY_EXISTS said another delivery queued the same task.
       */
      readonly kind: 'queued';
      readonly operation: Operation;
      /** The Cloud Tasks task's full name: the launch's identity, the same for every duplicate. */
      readonly task: string;
      readonly attempt: number;
      readonly since: string;
      /** Why the adapter launched (its launch reason, e.g. `drift-reported`), recorded as `launch_reason`. */
      readonly launchReason?: string;
      /** A background run of a converged cluster keeps its Available cell and place data. */
      readonly kept?: KeptConvergence;
    }
  | {
      /** The execution reported its own start (the job's `started` message, via the reporter). */
      readonly kind: 'launched';
      readonly operation: Operation;
      readonly execution: string;
      readonly launchedAt: string;
      readonly attempt: number;
      readonly task?: string;
      readonly launchReason?: string;
      readonly kept?: KeptConvergence;
    }
  | {
      readonly kind: 'launch-failed';
      readonly operation: Operation;
      readonly reason: string;
      readonly message: string;
      /** The attempt that was refused (kept so the next launch takes a higher one). */
      readonly attempt?: number;
      /** A refused background run leaves the converged cluster Available (Health says the refusal). */
      readonly kept?: KeptConvergence;
    }
  | {
      readonly kind: 'succeeded';
      readonly execution: string;
      readonly provisioned: Provisioned;
      readonly timing: ExecutionTiming;
      /**
       * The launch attempt that succeeded (it holds the claim): a later run at the same generation
       * (resync, drift repair) launches with a higher one, or the job stands aside as a duplicate.
       */
      readonly attempt?: number;
    }
  | {
      readonly kind: 'failed';
      readonly operation: Operation;
      readonly execution?: string;
      readonly reason: string;
      readonly message: string;
      readonly failureKind: 'permanent' | 'transient';
      readonly attempt: number;
      readonly timing?: ExecutionTiming;
      /** How Cloud Run saw the execution end (NonZeroExit, Timeout, OOMKilled, Cancelled), when known. */
      readonly executionReason?: string;
    }
  | {
      readonly kind: 'finalized';
      readonly execution: string;
      readonly message: string;
      readonly timing: ExecutionTiming;
    };

export type Operation = 'apply' | 'delete';

/** Where the pull secret ended up after a successful apply. */
export interface Provisioned {
  /** The tenant project's secret: the pull secret's versions, or only the claim and place records. */
  readonly secretPath: string;
  /** The version holding the pull secret; absent when none does (the platform default, not copied). */
  readonly secretVersion?: string;
  /** Where the pull secret came from, when known (`platform-default`: the platform's, not the tenant's). */
  readonly pullSecretSource?: 'cluster-spec' | 'platform-default' | 'env';
  /** With the platform default: the number of its version the pull secret came from. */
  readonly defaultVersion?: string;
  readonly kubernetesSecret?: {
    /** The management cluster's name, when known (the job's result always says). */
    readonly managementCluster?: string;
    readonly namespace: string;
    readonly name: string;
    /** A layout migration kept ours in this (the previous layout's) namespace too. */
    readonly previousLayoutNamespace?: string;
  };
  readonly sha256Prefix?: string;
}

/** When an execution started and completed, for `metadata` and `observed_time`. */
export interface ExecutionTiming {
  readonly startedAt?: string;
  readonly completedAt: string;
}

/**
 * What a background run (resync, drift repair, a placement move) keeps of the converged status it
 * started from, until it fails or succeeds: Available=True with its reason and message, and the
 * place data HyperShift reads (`management_cluster`, `namespace`, `pull_secret_name`, ...).
 */
export interface KeptConvergence {
  readonly reason: string;
  readonly message: string;
  readonly data: Readonly<Record<string, unknown>>;
}
