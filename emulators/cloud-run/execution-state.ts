import { randomBytes, randomUUID } from 'node:crypto';
import { condition, ts, type AttemptResult, type CompletedOutcome } from './conditions';
import { parseJobName, type JobDefinition } from './job-definitions';

/** How an execution ended: its Completed condition. */
export type ExecutionEnd = CompletedOutcome;

/** The mutable record of one execution; `toProto` renders google.cloud.run.v2.Execution. */
export class ExecutionState {
  readonly name: string;
  readonly uid = randomUUID();
  readonly createTime = new Date();
  startTime?: Date;
  completionTime?: Date;
  updateTime = new Date();
  runningCount = 0;
  succeededCount = 0;
  failedCount = 0;
  cancelledCount = 0;
  /** Tasks retried at least once (the API's retried_count): 0 or 1 with one task. */
  retriedCount = 0;
  /** How often the task was retried (Task.retried). */
  taskRetries = 0;
  /** The last finished attempt of the task (Task.last_attempt_result). */
  lastAttempt?: AttemptResult;
  end?: ExecutionEnd;
  /** CancelExecution arrived; the task is being stopped (Completed shows CANCELLING until then). */
  cancelRequested = false;
  /** PID of the running task attempt, for the admin API's kill. */
  pid?: number;

  constructor(
    readonly job: JobDefinition,
    readonly env: Readonly<Record<string, string>>,
    readonly timeoutSeconds: number,
    /** Names in use: Cloud Run never gives two executions one name (5 random characters collide about once in 10,000 executions). */
    isTaken: (name: string) => boolean = () => false,
    /** The container's args for this execution: the job's, or a RunJob override's. */
    readonly args: readonly string[] = job.args,
  ) {
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

  /** The name of the execution's only task, as Cloud Run names it. */
  get taskName(): string {
    return `${this.name}/tasks/${this.shortName}-task0`;
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
      ...(this.taskRetries > 0
        ? [
            condition(
              'Retry',
              'CONDITION_SUCCEEDED',
              `System will retry after 0:00:00 from lastTransitionTime for attempt ${this.taskRetries}.`,
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
      parallelism: 1,
      task_count: 1,
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

  /** The execution's only task as google.cloud.run.v2.Task. */
  taskProto(): Record<string, unknown> {
    const taskState =
      this.end?.state ?? (this.startTime ? 'CONDITION_RECONCILING' : 'CONDITION_PENDING');
    const last = this.lastAttempt;
    return {
      name: this.taskName,
      uid: `${this.uid}-0`,
      generation: '1',
      create_time: ts(this.createTime),
      ...(this.startTime ? { start_time: ts(this.startTime) } : {}),
      ...(this.completionTime ? { completion_time: ts(this.completionTime) } : {}),
      update_time: ts(this.updateTime),
      job: this.job.name,
      execution: this.name,
      containers: [this.container()],
      max_retries: this.job.maxRetries,
      timeout: { seconds: String(this.timeoutSeconds), nanos: 0 },
      reconciling: this.end === undefined,
      conditions: [
        condition(
          'Completed',
          taskState,
          this.end ? (last?.status.message ?? this.end.message) : 'The task is running.',
          this.completionTime ?? this.updateTime,
        ),
      ],
      observed_generation: '1',
      index: 0,
      retried: this.taskRetries,
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
