import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { attemptResults, completedOutcome, type AttemptResult } from './conditions';
import type { ExecutionState } from './execution-state';
import type { TaskState } from './task-state';
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
 * The most task processes one execution runs at once on this machine, whatever its parallelism
 * (the emulator's `maxParallelTasks` changes it). Cloud Run starts tasks "as quickly as possible,
 * up to a maximum that varies depending on how many CPUs you are using"
 * (https://cloud.google.com/run/docs/configuring/parallelism); locally each task is a Node.js
 * process on a shared machine, and 8 keeps a batch execution from starving the rest of the stack.
 */
export const DEFAULT_MAX_PARALLEL_TASKS = 8;

/**
 * Runs an execution's tasks to the end as Cloud Run does: at most `parallelism` at once (and the
 * local ceiling), each task's attempts a fresh process with CLOUD_RUN_* variables (its own
 * CLOUD_RUN_TASK_INDEX, the execution's CLOUD_RUN_TASK_COUNT); a non-zero exit, a signal, a
 * timeout or exceeding the memory limit fails the attempt, and a task's failed attempts are
 * retried up to max_retries ("Number of retries allowed per Task"). A failed task does not stop
 * the others: "If any tasks failed, the job execution is marked as failed after Cloud Run has
 * attempted to run all tasks" (https://cloud.google.com/run/docs/create-jobs). `cancel()` stops
 * the running tasks and cancels the pending ones.
 */
export class TaskRunner {
  private cancelled = false;
  /** Stops the running attempt of each task, by index. */
  private readonly killers = new Map<number, (signal: NodeJS.Signals) => void>();

  constructor(
    private readonly execution: ExecutionState,
    private readonly baseEnv: Readonly<Record<string, string>>,
    /** Runs the task in this process instead of the job's command (benchmarks at fleet scale). */
    private readonly inProcess?: InProcessTask,
    private readonly maxParallelTasks = DEFAULT_MAX_PARALLEL_TASKS,
  ) {}

  /** Resolves when the execution has ended (state updated). */
  async run(): Promise<void> {
    const { execution } = this;
    execution.startTime = new Date();
    const slots = Math.max(
      1,
      Math.min(execution.parallelism, this.maxParallelTasks, execution.tasks.length),
    );
    await Promise.all(Array.from({ length: slots }, () => this.takeTasks()));
    this.finish();
  }

  /** One slot: runs the next pending task, then the next, until none is left or it is cancelled. */
  private async takeTasks(): Promise<void> {
    for (;;) {
      const task = this.cancelled
        ? undefined
        : this.execution.tasks.find((t) => t.phase === 'pending');
      if (!task) return;
      await this.runTask(task);
    }
  }

  /** A task's attempts, until one succeeds, its retries are spent, or it is cancelled. */
  private async runTask(task: TaskState): Promise<void> {
    const { execution } = this;
    task.phase = 'running';
    // The first task starts with its execution: one instant, as the single-task case always had.
    task.startTime = task.index === 0 && execution.startTime ? execution.startTime : new Date();
    for (let attempt = 0; ; attempt++) {
      execution.touch();
      const end = await this.attempt(task, attempt);
      task.pid = undefined;
      task.lastAttempt = this.resultOf(end);
      if (end.kind === 'cancelled') {
        task.phase = 'cancelled';
        break;
      }
      if (end.kind === 'exited' && end.code === 0) {
        task.phase = 'succeeded';
        break;
      }
      if (attempt < execution.job.maxRetries && !this.cancelled) {
        task.retried += 1;
        execution.lastRetryAttempt = task.retried;
        continue;
      }
      task.phase = 'failed';
      break;
    }
    task.completionTime = new Date();
  }

  /** Cancels the execution: running attempts are terminated, pending tasks never start, no retry follows. */
  cancel(): void {
    this.cancelled = true;
    if (!this.execution.done) {
      this.execution.cancelRequested = true;
      const now = new Date();
      for (const task of this.execution.tasks)
        if (task.phase === 'pending') {
          task.phase = 'cancelled';
          task.completionTime = now;
        }
      this.execution.touch();
    }
    for (const kill of [...this.killers.values()]) kill('SIGTERM');
  }

  /** Sends a signal to the lowest-index running attempt (admin API: simulate a crash). */
  kill(signal: NodeJS.Signals): boolean {
    const index = Math.min(...this.killers.keys());
    const kill = this.killers.get(index);
    if (!kill) return false;
    kill(signal);
    return true;
  }

  /**
   * The Completed outcome once every task has ended: cancelled when any task was, else failed
   * when any task failed (named by the lowest-index failed task and its last attempt), else
   * succeeded.
   */
  private finish(): void {
    const { execution } = this;
    const tasks = execution.tasks;
    const lastEnded = tasks.reduce<Date | undefined>(
      (latest, t) =>
        t.completionTime && (!latest || t.completionTime > latest) ? t.completionTime : latest,
      undefined,
    );
    execution.completionTime = lastEnded ?? new Date();
    const failed = tasks.find((t) => t.phase === 'failed');
    const deciding = failed ?? tasks[tasks.length - 1];
    execution.end = completedOutcome(
      execution.taskShortName(deciding?.index ?? 0),
      deciding?.lastAttempt ?? attemptResults.cancelled(),
      (execution.completionTime.getTime() -
        (execution.startTime ?? execution.createTime).getTime()) /
        1000,
      tasks.some((t) => t.phase === 'cancelled'),
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

  /**
   * The job's env with the overrides, plus the variables Cloud Run sets in every task
   * (https://cloud.google.com/run/docs/container-contract#jobs-env-vars): the task's index,
   * its attempt (0 first, +1 per retry) and the execution's task count.
   */
  private taskEnv(task: TaskState, attempt: number): Record<string, string> {
    const { execution } = this;
    return {
      ...execution.env,
      CLOUD_RUN_JOB: execution.job.name.split('/').pop() ?? '',
      CLOUD_RUN_EXECUTION: execution.shortName,
      CLOUD_RUN_TASK_INDEX: String(task.index),
      CLOUD_RUN_TASK_ATTEMPT: String(attempt),
      CLOUD_RUN_TASK_COUNT: String(execution.taskCount),
    };
  }

  private attempt(task: TaskState, attempt: number): Promise<AttemptEnd> {
    if (this.inProcess) return this.attemptInProcess(task, attempt, this.inProcess);
    return this.attemptAsProcess(task, attempt);
  }

  /** The task as a function of its environment; a timeout still fails the attempt. */
  private async attemptInProcess(
    taskState: TaskState,
    attempt: number,
    task: InProcessTask,
  ): Promise<AttemptEnd> {
    const { execution } = this;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<AttemptEnd>(
      (resolve) =>
        (timer = setTimeout(() => resolve({ kind: 'timeout' }), execution.timeoutSeconds * 1000)),
    );
    const run = task(this.taskEnv(taskState, attempt)).then(
      (code): AttemptEnd => ({ kind: 'exited', code }),
      (): AttemptEnd => ({ kind: 'exited', code: 1 }),
    );
    const end = await Promise.race([run, timeout]);
    clearTimeout(timer);
    return this.cancelled ? { kind: 'cancelled' } : end;
  }

  private attemptAsProcess(task: TaskState, attempt: number): Promise<AttemptEnd> {
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
      env: { ...this.baseEnv, ...this.taskEnv(task, attempt) },
      stdio: ['ignore', logFd ?? 'ignore', logFd ?? 'ignore'],
    });
    if (logFd !== undefined) fs.closeSync(logFd);
    task.pid = child.pid;
    return new Promise((resolve) => {
      let verdict: AttemptEnd | undefined;
      const stop = (why: AttemptEnd, signal: NodeJS.Signals = 'SIGTERM') => {
        verdict ??= why;
        child.kill(signal);
        if (signal === 'SIGTERM')
          setTimeout(() => child.kill('SIGKILL'), TERMINATION_GRACE_MS).unref();
      };
      this.killers.set(task.index, (signal) =>
        signal === 'SIGTERM' && this.cancelled ? stop({ kind: 'cancelled' }) : child.kill(signal),
      );
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
        this.killers.delete(task.index);
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
