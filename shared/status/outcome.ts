/** What `pullsecret` reports, before it becomes conditions. One per situation of the contract. */
export type StatusOutcome =
  | { readonly kind: 'not-met'; readonly precondition: string; readonly message: string }
  | { readonly kind: 'precondition-error'; readonly message: string }
  | {
      /**
       * The intent, written before RunJob: a redelivery that finds it without an execution knows
       * the launch is ambiguous (the execution may exist) and looks for it before launching again.
       */
      readonly kind: 'launching';
      readonly operation: Operation;
      readonly launchId: string;
      readonly attempt: number;
      readonly since: string;
      /** Why the adapter launched (its launch reason, e.g. `drift-reported`), recorded as `launch_reason`. */
      readonly launchReason?: string;
      /** Set when the launching instance gave up (Cloud Run kept failing, no execution found). */
      readonly abandoned?: { readonly reason: string; readonly message: string };
    }
  | {
      readonly kind: 'launched';
      readonly operation: Operation;
      readonly execution: string;
      readonly launchedAt: string;
      readonly attempt: number;
      readonly launchId?: string;
      readonly launchReason?: string;
    }
  | {
      readonly kind: 'launch-failed';
      readonly operation: Operation;
      readonly reason: string;
      readonly message: string;
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
  readonly kubernetesSecret?: {
    /** The management cluster's name, when known (the job's result always says). */
    readonly managementCluster?: string;
    readonly namespace: string;
    readonly name: string;
  };
  readonly sha256Prefix?: string;
}

/** When an execution started and completed, for `metadata` and `observed_time`. */
export interface ExecutionTiming {
  readonly startedAt?: string;
  readonly completedAt: string;
}
