import { randomBytes, randomUUID } from 'node:crypto';
import { attemptResults, condition, ts, type CompletedOutcome } from './conditions';
import { parseJobName, type JobDefinition } from './job-definitions';
import { TaskState } from './task-state';

/** How an execution ended: its Completed condition. */
export type ExecutionEnd = CompletedOutcome;

/**
 * The mutable record of one execution and its tasks; `toProto` renders
 * google.cloud.run.v2.Execution, `taskProto` each google.cloud.run.v2.Task. The counts are the
 * tasks' phases (task-state.ts).
 */
export class ExecutionState {
  readonly name: string;
  readonly uid = randomUUID();
  readonly createTime = new Date();
  startTime?: Date;
  completionTime?: Date;
  updateTime = new Date();
  /** The execution's tasks, by index. */
  readonly tasks: readonly TaskState[];
  /** The attempt number of the latest retry of any task (the `Retry` condition's message). */
  lastRetryAttempt = 0;
  end?: ExecutionEnd;
  /** CancelExecution arrived; the tasks are being stopped (Completed shows CANCELLING until then). */
  cancelRequested = false;

  constructor(
    readonly job: JobDefinition,
    readonly env: Readonly<Record<string, string>>,
    readonly timeoutSeconds: number,
    /** Names in use: Cloud Run never gives two executions one name (5 random characters collide about once in 10,000 executions). */
    isTaken: (name: string) => boolean = () => false,
    /** The container's args for this execution: the job's, or a RunJob override's. */
    readonly args: readonly string[] = job.args,
    /** Its tasks (run-job-rules.ts taskCountFor) and how many run at once (parallelismFor). */
    readonly taskCount = 1,
    readonly parallelism = 1,
  ) {
    this.tasks = Array.from({ length: taskCount }, (_, index) => new TaskState(index));
    const id = parseJobName(job.name).job;
    let name: string;
    do {
      const suffix = Array.from(
        randomBytes(5),
        (b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36],
      ).join('');
      name = `${job.name}/executions/${id}-${suffix}`;
    } while (isTaken(name));
    this.name = name;
  }

  get shortName(): string {
    return this.name.split('/').pop() ?? this.name;
  }

  get done(): boolean {
    return this.end !== undefined;
  }

  touch(): void {
    this.updateTime = new Date();
  }

  private count(phase: TaskState['phase']): number {
    return this.tasks.filter((task) => task.phase === phase).length;
  }

  get runningCount(): number {
    return this.count('running');
  }

  get succeededCount(): number {
    return this.count('succeeded');
  }

  get failedCount(): number {
    return this.count('failed');
  }

  get cancelledCount(): number {
    return this.count('cancelled');
  }

  /** Tasks retried at least once (the API's retried_count). */
  get retriedCount(): number {
    return this.tasks.filter((task) => task.retried > 0).length;
  }

  /** PID of the lowest-index running task attempt, for the admin API. */
  get pid(): number | undefined {
    return this.tasks.find((task) => task.pid !== undefined)?.pid;
  }

  /** A task's short name, as Cloud Run names it (`EXECUTION-taskN`). */
  taskShortName(index: number): string {
    return `${this.shortName}-task${index}`;
  }

  /** A task's resource name. */
  taskName(index: number): string {
    return `${this.name}/tasks/${this.taskShortName(index)}`;
  }

  /** The execution's conditions: Completed first, then the ones that have happened. */
  private conditions(): Record<string, unknown>[] {
    const started = this.startTime;
    const completed =
      this.end === undefined
        ? this.cancelRequested
          ? condition(
              'Completed',
              'CONDITION_RECONCILING',
              'The execution is being cancelled.',
              this.updateTime,
              { execution_reason: 'CANCELLING' },
            )
          : condition(
              'Completed',
              started ? 'CONDITION_RECONCILING' : 'CONDITION_PENDING',
              started ? 'Tasks are running.' : 'Waiting for tasks to start.',
              this.updateTime,
            )
        : condition(
            'Completed',
            this.end.state,
            this.end.message,
            this.completionTime ?? this.updateTime,
            this.end.executionReason ? { execution_reason: this.end.executionReason } : {},
          );
    if (!started) return [completed];
    return [
      completed,
      condition(
        'ResourcesAvailable',
        'CONDITION_SUCCEEDED',
        'Provisioned imported containers.',
        started,
      ),
      condition('Started', 'CONDITION_SUCCEEDED', 'Started deployed execution.', started),
      ...(this.lastRetryAttempt > 0
        ? [
            condition(
              'Retry',
              'CONDITION_SUCCEEDED',
              `System will retry after 0:00:00 from lastTransitionTime for attempt ${this.lastRetryAttempt}.`,
              this.updateTime,
              { reason: 'IMMEDIATE_RETRY' },
            ),
          ]
        : []),
    ];
  }

  private container(): Record<string, unknown> {
    return {
      name: this.job.containerName,
      image: this.job.image,
      command: this.job.command,
      args: this.args,
      env: Object.entries(this.env).map(([name, value]) => ({ name, value })),
    };
  }

  toProto(): Record<string, unknown> {
    return {
      name: this.name,
      uid: this.uid,
      generation: '1',
      create_time: ts(this.createTime),
      ...(this.startTime ? { start_time: ts(this.startTime) } : {}),
      ...(this.completionTime ? { completion_time: ts(this.completionTime) } : {}),
      update_time: ts(this.updateTime),
      launch_stage: 'GA',
      job: this.job.name,
      parallelism: this.parallelism,
      task_count: this.taskCount,
      template: {
        containers: [this.container()],
        max_retries: this.job.maxRetries,
        timeout: { seconds: String(this.timeoutSeconds), nanos: 0 },
      },
      reconciling: this.end === undefined,
      conditions: this.conditions(),
      observed_generation: '1',
      running_count: this.runningCount,
      succeeded_count: this.succeededCount,
      failed_count: this.failedCount,
      cancelled_count: this.cancelledCount,
      retried_count: this.retriedCount,
      log_uri: `file://${this.job.logDir ?? '/dev/null'}/${this.shortName}.log`,
      etag: `"${this.updateTime.getTime()}"`,
    };
  }

  /** Task `index` as google.cloud.run.v2.Task. */
  taskProto(index: number): Record<string, unknown> {
    const task = this.tasks[index];
    if (!task) throw new RangeError(`${this.name} has no task ${index}`);
    const taskState =
      task.phase === 'succeeded'
        ? 'CONDITION_SUCCEEDED'
        : task.ended
          ? 'CONDITION_FAILED'
          : task.phase === 'running'
            ? 'CONDITION_RECONCILING'
            : 'CONDITION_PENDING';
    const last = task.lastAttempt;
    const message = task.ended
      ? (last?.status.message ?? attemptResults.cancelled().status.message)
      : task.phase === 'running'
        ? 'The task is running.'
        : 'Waiting for the task to start.';
    return {
      name: this.taskName(index),
      uid: `${this.uid}-${index}`,
      generation: '1',
      create_time: ts(this.createTime),
      ...(task.startTime ? { start_time: ts(task.startTime) } : {}),
      ...(task.completionTime ? { completion_time: ts(task.completionTime) } : {}),
      update_time: ts(this.updateTime),
      job: this.job.name,
      execution: this.name,
      containers: [this.container()],
      max_retries: this.job.maxRetries,
      timeout: { seconds: String(this.timeoutSeconds), nanos: 0 },
      reconciling: !task.ended,
      conditions: [
        condition('Completed', taskState, message, task.completionTime ?? this.updateTime),
      ],
      observed_generation: '1',
      index,
      retried: task.retried,
      ...(last
        ? {
            last_attempt_result: {
              status: last.status,
              ...(last.exitCode !== undefined ? { exit_code: last.exitCode } : {}),
            },
          }
        : {}),
      log_uri: `file://${this.job.logDir ?? '/dev/null'}/${this.shortName}.log`,
      etag: `"${this.updateTime.getTime()}"`,
    };
  }
}
