import type { JobResult } from '../../../shared/job-result';

/** The reason a result and the job's spans carry when the execution was stopped by a signal. */
export const TERMINATED_REASON = 'Terminated';

/**
 * How long the job gives its span export after SIGTERM: Cloud Run sends SIGKILL 10 s after
 * SIGTERM, and the result line and the exit must come before that, with room to spare.
 */
export const TERMINATION_FLUSH_MS = 3000;

/** The exit code of a process ended by a signal, as a shell reports it (128 + its number). */
export const SIGNAL_EXIT_CODES = { SIGTERM: 143, SIGINT: 130 } as const;
export type TerminationSignal = keyof typeof SIGNAL_EXIT_CODES;

/**
 * The result of an execution stopped by a signal before it finished (Cloud Run's task timeout,
 * a cancel, Ctrl-C): failed and transient, since the next execution can simply run again.
 */
export function terminatedResult(
  base: Pick<JobResult, 'operation' | 'dry_run' | 'cluster_id' | 'generation' | 'execution'>,
  signal: TerminationSignal,
  now: Date,
): JobResult {
  return {
    outcome: 'failed',
    ...base,
    phases: [],
    reason: TERMINATED_REASON,
    message: `The pull secret job was stopped by ${signal} before it finished (Cloud Run's task timeout or a cancel); the next execution will run it again.`,
    failure_kind: 'transient',
    durations_ms: {},
    finished_at: now.toISOString(),
  };
}

/** Resolves after `ms` or when `work` settles, whichever is first; never rejects. */
export async function boundedWait(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    work.catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
