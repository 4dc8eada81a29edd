import { randomBytes, randomUUID } from 'node:crypto';
import { parseJobName, type JobDefinition } from './job-definitions';

/** How an execution ended, in Cloud Run's terms. */
export type ExecutionEnd =
  | { readonly kind: 'succeeded' }
  | { readonly kind: 'failed'; readonly message: string; readonly reason: 'NON_ZERO_EXIT_CODE' }
  | { readonly kind: 'cancelled'; readonly message: string };

type Timestamp = { seconds: string; nanos: number };
const ts = (date: Date): Timestamp => ({
  seconds: String(Math.floor(date.getTime() / 1000)),
  nanos: (date.getTime() % 1000) * 1_000_000,
});

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
  retriedCount = 0;
  end?: ExecutionEnd;
  /** PID of the running task attempt, for the admin API's kill. */
  pid?: number;

  constructor(
    readonly job: JobDefinition,
    readonly env: Readonly<Record<string, string>>,
    readonly timeoutSeconds: number,
  ) {
    const id = parseJobName(job.name).job;
    const suffix = Array.from(
      randomBytes(5),
      (b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36],
    ).join('');
    this.name = `${job.name}/executions/${id}-${suffix}`;
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

  toProto(): Record<string, unknown> {
    const completed =
      this.end === undefined
        ? {
            type: 'Completed',
            state: 'CONDITION_PENDING',
            message: this.runningCount > 0 ? 'Tasks are running' : 'Waiting for tasks',
            last_transition_time: ts(this.updateTime),
            severity: 'INFO',
          }
        : this.end.kind === 'succeeded'
          ? {
              type: 'Completed',
              state: 'CONDITION_SUCCEEDED',
              message: 'Execution completed successfully.',
              last_transition_time: ts(this.completionTime ?? this.updateTime),
              severity: 'INFO',
            }
          : {
              type: 'Completed',
              state: 'CONDITION_FAILED',
              message: this.end.message,
              last_transition_time: ts(this.completionTime ?? this.updateTime),
              severity: 'ERROR',
              execution_reason: this.end.kind === 'cancelled' ? 'CANCELLED' : this.end.reason,
            };
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
        containers: [
          {
            name: this.job.containerName,
            image: 'local/pull-secret-job',
            command: this.job.command,
            env: Object.entries(this.env).map(([name, value]) => ({ name, value })),
          },
        ],
        max_retries: this.job.maxRetries,
        timeout: { seconds: String(this.timeoutSeconds), nanos: 0 },
      },
      reconciling: this.end === undefined,
      conditions: [completed],
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
}
