import type { FailureKind } from '../errors';
import { EXIT_CODES } from '../job-result';
import type { ExecutionSummary } from './execution-reader';

/** How Cloud Run saw an execution end, in the words of the status contract (`execution_reason`). */
export type ExecutionFailureReason =
  'Cancelled' | 'Deleted' | 'Timeout' | 'OOMKilled' | 'Killed' | 'NonZeroExit' | 'Unknown';

/** What the reporter says about an execution that failed without a job result to explain it. */
export interface ExecutionFailure {
  readonly executionReason: ExecutionFailureReason;
  /** The status condition reason: the job's own reason where its exit code names one. */
  readonly reason: string;
  readonly failureKind: FailureKind;
  readonly exitCode?: number;
}

/** google.rpc.Code numbers that Cloud Run puts in a task's last attempt status. */
const RPC_DEADLINE_EXCEEDED = 4;
const RPC_RESOURCE_EXHAUSTED = 8;

/** The job's documented exit codes (docs/configuration.md, "Exit codes"), and what each means for the status. */
const JOB_EXIT_CODES: Readonly<Record<number, { reason: string; failureKind: FailureKind }>> = {
  [EXIT_CODES.internal]: { reason: 'InternalError', failureKind: 'transient' },
  [EXIT_CODES.configuration]: { reason: 'InvalidConfiguration', failureKind: 'permanent' },
  [EXIT_CODES.permanent]: { reason: 'JobFailed', failureKind: 'permanent' },
  [EXIT_CODES.transient]: { reason: 'JobFailed', failureKind: 'transient' },
};

const failure = (executionReason: ExecutionFailureReason, exitCode?: number): ExecutionFailure => ({
  executionReason,
  reason: 'JobFailed',
  failureKind: 'transient',
  ...(exitCode ? { exitCode } : {}),
});

/**
 * Why an execution failed, from structured fields only (never its message text): the Completed
 * condition's execution reason (CANCELLED, CANCELLING, DELETED), then the last task attempt's
 * status code (DEADLINE_EXCEEDED: the task timeout; RESOURCE_EXHAUSTED: the memory limit) and exit
 * code (the job's documented codes; above 128, killed by a signal). Without a job result, only a
 * documented permanent exit code makes the failure permanent; everything else may be retried.
 */
export function classifyExecutionFailure(summary: ExecutionSummary): ExecutionFailure {
  const executionReason = summary.executionReason ?? '';
  if (summary.cancelled || executionReason === 'CANCELLED' || executionReason === 'CANCELLING')
    return failure('Cancelled');
  if (executionReason === 'DELETED') return failure('Deleted');
  const attempt = summary.lastAttempt;
  const exitCode = attempt?.exitCode;
  if (attempt?.statusCode === RPC_RESOURCE_EXHAUSTED) return failure('OOMKilled', exitCode);
  if (attempt?.statusCode === RPC_DEADLINE_EXCEEDED) return failure('Timeout', exitCode);
  if (exitCode !== undefined && exitCode > 0) {
    if (exitCode > 128) return failure('Killed', exitCode);
    const documented = JOB_EXIT_CODES[exitCode];
    return documented
      ? { executionReason: 'NonZeroExit', ...documented, exitCode }
      : failure('NonZeroExit', exitCode);
  }
  if (executionReason === 'NON_ZERO_EXIT_CODE') return failure('NonZeroExit');
  return failure('Unknown');
}
