/** What the reporter needs to know about a finished execution. */
export interface ExecutionSummary {
  readonly name: string;
  /** The per-execution overrides the adapter set (CLUSTER_ID, GENERATION, OPERATION, ...). */
  readonly env: Readonly<Record<string, string>>;
  readonly startTime?: string;
  readonly completionTime?: string;
  /** The Completed condition is CONDITION_SUCCEEDED. */
  readonly succeeded: boolean;
  readonly cancelled: boolean;
  /** The Completed condition's message: for people, never parsed. */
  readonly message: string;
  /** The Completed condition's execution reason (NON_ZERO_EXIT_CODE, CANCELLED, DELETED, ...). */
  readonly executionReason?: string;
  /** The failed task's last attempt (Task.last_attempt_result), read only for failed executions. */
  readonly lastAttempt?: {
    /** Unset when the container did not exit by itself (e.g. stopped at its timeout). */
    readonly exitCode?: number;
    /** google.rpc.Code of the attempt's status. */
    readonly statusCode?: number;
  };
}

/** Reads an execution from Cloud Run; undefined when it does not exist. */
export interface ExecutionReader {
  read(name: string): Promise<ExecutionSummary | undefined>;
}
