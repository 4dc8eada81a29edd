import type { AttemptResult } from './conditions';

/**
 * Where one task of an execution stands. An execution's counts are its tasks' phases
 * (google/cloud/run/v2/execution.proto): `running_count` "actively running tasks",
 * `succeeded_count`, `failed_count` and `cancelled_count` the tasks "which reached phase"
 * Succeeded, Failed, Cancelled. A task waiting for a free slot (parallelism) is pending.
 */
export type TaskPhase = 'pending' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** The mutable record of one task (google.cloud.run.v2.Task), rendered by ExecutionState. */
export class TaskState {
  phase: TaskPhase = 'pending';
  startTime?: Date;
  completionTime?: Date;
  /** How often the task was retried (Task.retried: "Tasks are retried when they fail up to the maxRetries limit"). */
  retried = 0;
  /** Its last finished attempt (Task.last_attempt_result). */
  lastAttempt?: AttemptResult;
  /** PID of its running attempt, for the admin API's kill. */
  pid?: number;

  /** `index`: "Index of the Task, unique per execution, and beginning at 0" (task.proto). */
  constructor(readonly index: number) {}

  get ended(): boolean {
    return this.phase === 'succeeded' || this.phase === 'failed' || this.phase === 'cancelled';
  }
}
