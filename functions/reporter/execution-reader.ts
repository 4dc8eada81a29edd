/** What the reporter needs to know about a finished execution. */
export interface ExecutionSummary {
  readonly name: string;
  /** The per-execution overrides the adapter set (CLUSTER_ID, GENERATION, OPERATION, ...). */
  readonly env: Readonly<Record<string, string>>;
  readonly startTime?: string;
  readonly completionTime?: string;
  readonly succeeded: boolean;
  readonly cancelled: boolean;
  /** The Completed condition's message and execution reason (e.g. NON_ZERO_EXIT_CODE, CANCELLED). */
  readonly message: string;
  readonly executionReason?: string;
}

/** Reads an execution from Cloud Run; undefined when it does not exist. */
export interface ExecutionReader {
  read(name: string): Promise<ExecutionSummary | undefined>;
}
