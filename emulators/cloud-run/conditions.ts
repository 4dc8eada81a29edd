/**
 * How Cloud Run describes an execution and its task, kept in one place to read against the Admin
 * API v2 reference (google.cloud.run.v2.Condition, Execution, Task, TaskAttemptResult):
 *
 * - An execution's `Completed` condition is the terminal one: CONDITION_PENDING before the task
 *   starts, CONDITION_RECONCILING while it runs, then CONDITION_SUCCEEDED or CONDITION_FAILED.
 *   A failed one carries `execution_reason`: NON_ZERO_EXIT_CODE ("a task reached its retry limit and
 *   the last attempt failed due to the user container exiting with a non-zero exit code"),
 *   CANCELLED, or DELETED. A task stopped by its timeout did not exit with a code, so no
 *   execution reason is set; the task's `last_attempt_result.status` says what happened.
 * - With several tasks the execution ends when the last task has: failed when any task failed
 *   ("after Cloud Run has attempted to run all tasks", https://cloud.google.com/run/docs/create-jobs),
 *   its message naming the lowest-index failed task; CANCELLED when any was cancelled.
 * - `ResourcesAvailable` and `Started` turn CONDITION_SUCCEEDED once the task starts; `Retry`
 *   (reason IMMEDIATE_RETRY) appears once a task attempt has been retried.
 * - Messages follow the service's wording: "Execution completed successfully in 12.3s.",
 *   "Task <task> failed with message: The container exited with an error.",
 *   "... The configured timeout was reached.".
 * - A task's `last_attempt_result` holds the exit code (unset when the container did not exit by
 *   itself) and a google.rpc.Status: OK for exit 0, the reason otherwise. A container killed by a
 *   signal exits with 128 + the signal number, as container runtimes report it (137 for SIGKILL).
 */

type Timestamp = { seconds: string; nanos: number };
/** Renders a Date as google.protobuf.Timestamp. */
export const ts = (date: Date): Timestamp => ({
  seconds: String(Math.floor(date.getTime() / 1000)),
  nanos: (date.getTime() % 1000) * 1_000_000,
});

/** google.rpc.Code numbers used in task attempt results. */
export const RPC_CODE = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  DEADLINE_EXCEEDED: 4,
  RESOURCE_EXHAUSTED: 8,
} as const;

/** How one task attempt ended, as google.cloud.run.v2.TaskAttemptResult. */
export interface AttemptResult {
  readonly exitCode?: number;
  readonly status: { readonly code: number; readonly message: string };
}

const SIGNAL_NUMBERS: Readonly<Record<string, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGKILL: 9,
  SIGTERM: 15,
};

/** The attempt result for each way an attempt can end. */
export const attemptResults = {
  exited: (code: number): AttemptResult =>
    code === 0
      ? { exitCode: 0, status: { code: RPC_CODE.OK, message: '' } }
      : {
          exitCode: code,
          status: { code: RPC_CODE.UNKNOWN, message: 'The container exited with an error.' },
        },
  signalled: (signal: string): AttemptResult => ({
    exitCode: 128 + (SIGNAL_NUMBERS[signal] ?? 9),
    status: {
      code: RPC_CODE.UNKNOWN,
      message: `The container exited with an error (terminated by ${signal}).`,
    },
  }),
  timeout: (): AttemptResult => ({
    status: { code: RPC_CODE.DEADLINE_EXCEEDED, message: 'The configured timeout was reached.' },
  }),
  oom: (limitMiB: number, usedMiB: number): AttemptResult => ({
    exitCode: 137,
    status: {
      code: RPC_CODE.RESOURCE_EXHAUSTED,
      message: `Memory limit of ${limitMiB} MiB exceeded with ${Math.round(usedMiB)} MiB used. Consider increasing the memory limit.`,
    },
  }),
  cancelled: (): AttemptResult => ({
    status: { code: RPC_CODE.CANCELLED, message: 'The task was cancelled.' },
  }),
};

/** What the Completed condition of a finished execution says. */
export interface CompletedOutcome {
  readonly state: 'CONDITION_SUCCEEDED' | 'CONDITION_FAILED';
  readonly message: string;
  readonly executionReason?: 'NON_ZERO_EXIT_CODE' | 'CANCELLED' | 'DELETED';
}

/** The Completed outcome for an execution whose task ended with `last` (after any retries). */
export function completedOutcome(
  taskName: string,
  last: AttemptResult,
  runSeconds: number,
  cancelled: boolean,
): CompletedOutcome {
  if (cancelled)
    return {
      state: 'CONDITION_FAILED',
      message: 'The execution was cancelled.',
      executionReason: 'CANCELLED',
    };
  if (last.status.code === RPC_CODE.OK)
    return {
      state: 'CONDITION_SUCCEEDED',
      message: `Execution completed successfully in ${runSeconds.toFixed(1)}s.`,
    };
  const message = `Task ${taskName} failed with message: ${last.status.message}`;
  return last.exitCode !== undefined && last.exitCode !== 0
    ? { state: 'CONDITION_FAILED', message, executionReason: 'NON_ZERO_EXIT_CODE' }
    : { state: 'CONDITION_FAILED', message };
}

/** One google.cloud.run.v2.Condition. */
export function condition(
  type: string,
  state: string,
  message: string,
  time: Date,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    type,
    state,
    message,
    last_transition_time: ts(time),
    severity: state === 'CONDITION_FAILED' ? 'ERROR' : 'INFO',
    ...extra,
  };
}
