import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { attemptResults, completedOutcome, type AttemptResult } from './conditions';
import type { ExecutionState } from './execution-state';
import { CLOUD_RUN_EMULATOR_ARGV0 } from '../../shared/gcp/cloud-run-emulator-mark';

/** A task run in-process: receives the task's environment, resolves with its exit code. */
export type InProcessTask = (env: Readonly<Record<string, string>>) => Promise<number>;

/** How one task attempt ended. */
type AttemptEnd =
  | { kind: 'exited'; code: number }
  | { kind: 'signalled'; signal: string }
  | { kind: 'timeout' }
  | { kind: 'oom'; usedMiB: number }
  | { kind: 'cancelled' };

const MEMORY_POLL_MS = 100;
/**
 * Between SIGTERM and SIGKILL when a task is stopped (timeout, cancellation): Cloud Run's container
 * contract gives an instance 10 seconds after SIGTERM before it is killed
 * (https://cloud.google.com/run/docs/container-contract#instance-shutdown), and a task at its
 * timeout behaves the same (field report with measurements: https://zenn.dev/toyb0x/articles/8eaf22422742bd;
 * the task-timeout page says only "stopped"). The job's own flush on SIGTERM (3 s) fits in it.
 */
export const TERMINATION_GRACE_MS = 10_000;

/**
 * Runs an execution's single task to the end as Cloud Run does: each attempt is a fresh process
 * with CLOUD_RUN_* variables; a non-zero exit, a signal, a timeout or exceeding the memory limit
 * fails the attempt, and failed attempts are retried up to max_retries. `cancel()` stops it.
 */
export class TaskRunner {
  private cancelled = false;
  private killCurrent?: (signal: NodeJS.Signals) => void;

  constructor(
    private readonly execution: ExecutionState,
    private readonly baseEnv: Readonly<Record<string, string>>,
    /** Runs the task in this process instead of the job's command (benchmarks at fleet scale). */
    private readonly inProcess?: InProcessTask,
  ) {}

  /** Resolves when the execution has ended (state updated). */
  async run(): Promise<void> {
    const { execution } = this;
    execution.startTime = new Date();
    for (let attempt = 0; ; attempt++) {
      execution.runningCount = 1;
      execution.touch();
      const end = await this.attempt(attempt);
      execution.runningCount = 0;
      execution.pid = undefined;
      execution.lastAttempt = this.resultOf(end);
      if (end.kind === 'cancelled') {
        execution.cancelledCount = 1;
        this.finish(true);
        return;
      }
      if (end.kind === 'exited' && end.code === 0) {
        execution.succeededCount = 1;
        this.finish(false);
        return;
      }
      if (attempt < execution.job.maxRetries && !this.cancelled) {
        execution.taskRetries += 1;
        execution.retriedCount = 1;
        continue;
      }
      execution.failedCount = 1;
      this.finish(false);
      return;
    }
  }

  /** Cancels the execution: the running attempt is terminated and no retry follows. */
  cancel(): void {
    this.cancelled = true;
    if (!this.execution.done) {
      this.execution.cancelRequested = true;
      this.execution.touch();
    }
    this.killCurrent?.('SIGTERM');
  }

  /** Sends a signal to the running attempt (admin API: simulate a crash). */
  kill(signal: NodeJS.Signals): boolean {
    if (!this.killCurrent) return false;
    this.killCurrent(signal);
    return true;
  }

  private finish(cancelled: boolean): void {
    const { execution } = this;
    execution.completionTime = new Date();
    execution.end = completedOutcome(
      `${execution.shortName}-task0`,
      execution.lastAttempt ?? attemptResults.cancelled(),
      (execution.completionTime.getTime() -
        (execution.startTime ?? execution.createTime).getTime()) /
        1000,
      cancelled,
    );
    execution.touch();
  }

  private resultOf(end: AttemptEnd): AttemptResult {
    switch (end.kind) {
      case 'exited':
        return attemptResults.exited(end.code);
      case 'signalled':
        return attemptResults.signalled(end.signal);
      case 'timeout':
        return attemptResults.timeout();
      case 'oom':
        return attemptResults.oom(this.execution.job.memoryLimitMiB ?? 0, end.usedMiB);
      case 'cancelled':
        return attemptResults.cancelled();
    }
  }

  /** The job's env with the overrides, plus the variables Cloud Run sets in every task. */
  private taskEnv(attempt: number): Record<string, string> {
    const { execution } = this;
    return {
      ...execution.env,
      CLOUD_RUN_JOB: execution.job.name.split('/').pop() ?? '',
      CLOUD_RUN_EXECUTION: execution.shortName,
      CLOUD_RUN_TASK_INDEX: '0',
      CLOUD_RUN_TASK_ATTEMPT: String(attempt),
      CLOUD_RUN_TASK_COUNT: '1',
    };
  }

  private attempt(attempt: number): Promise<AttemptEnd> {
    if (this.inProcess) return this.attemptInProcess(attempt, this.inProcess);
    return this.attemptAsProcess(attempt);
  }

  /** The task as a function of its environment; a timeout still fails the attempt. */
  private async attemptInProcess(attempt: number, task: InProcessTask): Promise<AttemptEnd> {
    const { execution } = this;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<AttemptEnd>(
      (resolve) =>
        (timer = setTimeout(() => resolve({ kind: 'timeout' }), execution.timeoutSeconds * 1000)),
    );
    const run = task(this.taskEnv(attempt)).then(
      (code): AttemptEnd => ({ kind: 'exited', code }),
      (): AttemptEnd => ({ kind: 'exited', code: 1 }),
    );
    const end = await Promise.race([run, timeout]);
    clearTimeout(timer);
    return this.cancelled ? { kind: 'cancelled' } : end;
  }

  private attemptAsProcess(attempt: number): Promise<AttemptEnd> {
    const { execution } = this;
    const [command, ...entrypointArgs] = execution.job.command as [string, ...string[]];
    const args = [...entrypointArgs, ...execution.args];
    // The child writes its log file itself (no pipe through this process), so its lines land in
    // the order and at the moment it writes them, and none are lost if this emulator stops first.
    const logFd = execution.job.logDir
      ? fs.openSync(path.join(execution.job.logDir, `${execution.shortName}.log`), 'a', 0o600)
      : undefined;
    const child = spawn(command, args, {
      // The emulator's mark (Cloud Run runs the image's ENTRYPOINT, which no override changes): the
      // job accepts its local-only variables, emulator hosts and the like, only under this mark.
      // (A multi-call binary such as busybox picks its applet by argv[0]: run it through a shell.)
      argv0: CLOUD_RUN_EMULATOR_ARGV0,
      env: { ...this.baseEnv, ...this.taskEnv(attempt) },
      stdio: ['ignore', logFd ?? 'ignore', logFd ?? 'ignore'],
    });
    if (logFd !== undefined) fs.closeSync(logFd);
    execution.pid = child.pid;
    return new Promise((resolve) => {
      let verdict: AttemptEnd | undefined;
      const stop = (why: AttemptEnd, signal: NodeJS.Signals = 'SIGTERM') => {
        verdict ??= why;
        child.kill(signal);
        if (signal === 'SIGTERM')
          setTimeout(() => child.kill('SIGKILL'), TERMINATION_GRACE_MS).unref();
      };
      this.killCurrent = (signal) =>
        signal === 'SIGTERM' && this.cancelled ? stop({ kind: 'cancelled' }) : child.kill(signal);
      const timeout = setTimeout(() => stop({ kind: 'timeout' }), execution.timeoutSeconds * 1000);
      const memory = execution.job.memoryLimitMiB
        ? setInterval(() => {
            const usedMiB = residentMiB(child.pid);
            if (usedMiB !== undefined && usedMiB > (execution.job.memoryLimitMiB ?? Infinity))
              stop({ kind: 'oom', usedMiB }, 'SIGKILL');
          }, MEMORY_POLL_MS)
        : undefined;
      const settle = (end: AttemptEnd) => {
        clearTimeout(timeout);
        if (memory) clearInterval(memory);
        this.killCurrent = undefined;
        resolve(verdict ?? end);
      };
      child.once('exit', (code, signal) =>
        settle(signal ? { kind: 'signalled', signal } : { kind: 'exited', code: code ?? 1 }),
      );
      // A command that cannot start emits no 'exit': it fails like a container whose entrypoint
      // is missing (127, as a shell reports "command not found").
      child.once('error', () => settle({ kind: 'exited', code: 127 }));
    });
  }
}

function residentMiB(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]);
    return Number.isFinite(kb) ? kb / 1024 : undefined;
  } catch {
    return undefined;
  }
}
