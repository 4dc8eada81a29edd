import { randomInt } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { GrpcError } from '../common/grpc-error';
import { queueSettings } from './queue-settings';
import type { QueueRecord, TaskRecord } from './records';
import { QUEUE_TOMBSTONE_MS, queueOfTask, requireLocation, requireQueueName } from './rules';
import { newTask } from './task-rules';
import { TokenBucket } from './token-bucket';
import type { QueueInput, TaskInput } from './wire';

/** Cloud Tasks' NOT_FOUND for a queue (what CreateTask answers on a missing queue, too). */
const queueMissing = (name: string) =>
  new GrpcError(
    grpc.status.NOT_FOUND,
    `Queue does not exist. If you just created the queue, wait at least a minute for the queue to initialize. (${name})`,
  );
const taskMissing = (name: string) =>
  new GrpcError(grpc.status.NOT_FOUND, `Requested entity was not found. (task ${name})`);

/**
 * The queues, their tasks and the names that cannot be used again yet (tombstones): everything
 * the CloudTasks RPCs read and write, dispatch excepted (dispatcher.ts). Times come from `now`.
 */
export class QueueBook {
  readonly queues = new Map<string, QueueRecord>();
  readonly tasks = new Map<string, TaskRecord>();
  /** Task names deleted or finished, until when they stay taken (the dedupe window). */
  private readonly taskTombstones = new Map<string, number>();
  private readonly queueTombstones = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    /** How long a task name stays taken after its task is gone (TASK_TOMBSTONE_MS by default). */
    private readonly taskTombstoneMs: number,
  ) {}

  createQueue(parent: string, input: QueueInput): QueueRecord {
    requireLocation(parent);
    const name = requireQueueName(input.name ?? '', parent);
    if (this.queues.has(name))
      throw new GrpcError(grpc.status.ALREADY_EXISTS, `Queue already exists: ${name}`);
    // "If you delete a queue, you must wait 7 days before creating a queue with the same name."
    if ((this.queueTombstones.get(name) ?? 0) > this.now())
      throw new GrpcError(
        grpc.status.FAILED_PRECONDITION,
        `The queue ${name} was deleted recently; a queue with the same name cannot be created for ${QUEUE_TOMBSTONE_MS / 86_400_000} days after its deletion.`,
      );
    const settings = queueSettings(input, undefined);
    const queue: QueueRecord = {
      name,
      state: 'RUNNING',
      ...settings,
      ...(input.stackdriver_logging_config
        ? { loggingConfig: input.stackdriver_logging_config as { sampling_ratio?: number } }
        : {}),
      bucket: new TokenBucket(
        settings.rate.maxDispatchesPerSecond,
        settings.rate.maxBurstSize,
        this.now(),
      ),
      inFlight: 0,
    };
    this.queues.set(name, queue);
    return queue;
  }

  /** UpdateQueue: "If the queue does not exist, the queue is created." */
  updateQueue(input: QueueInput, maskPaths: readonly string[]): QueueRecord {
    const name = requireQueueName(input.name ?? '');
    const queue = this.queues.get(name);
    if (!queue) return this.createQueue(name.slice(0, name.lastIndexOf('/queues/')), input);
    const settings = queueSettings(input, queue, maskPaths);
    queue.rate = settings.rate;
    queue.retry = settings.retry;
    queue.bucket.reconfigure(
      settings.rate.maxDispatchesPerSecond,
      settings.rate.maxBurstSize,
      this.now(),
    );
    return queue;
  }

  queue(name: unknown): QueueRecord {
    const queue = typeof name === 'string' ? this.queues.get(name) : undefined;
    if (!queue) throw queueMissing(String(name));
    return queue;
  }

  listQueues(parent: string): QueueRecord[] {
    requireLocation(parent);
    return [...this.queues.values()].filter((q) => q.name.startsWith(`${parent}/queues/`));
  }

  /** DeleteQueue: the queue and its tasks go; the name is kept from reuse for 7 days. */
  deleteQueue(name: unknown): void {
    const queue = this.queue(name);
    for (const task of this.tasksOf(queue.name)) this.tasks.delete(task.name);
    this.queues.delete(queue.name);
    this.queueTombstones.set(queue.name, this.now() + QUEUE_TOMBSTONE_MS);
  }

  /** PurgeQueue: "All tasks that were created before this time were purged." */
  purgeQueue(name: unknown): QueueRecord {
    const queue = this.queue(name);
    queue.purgeTimeMs = this.now();
    for (const task of this.tasksOf(queue.name))
      if (task.createTimeMs <= queue.purgeTimeMs) this.finish(task);
    return queue;
  }

  /** CreateTask, named (dedupe) or unnamed (a random id). */
  createTask(parent: unknown, input: TaskInput): TaskRecord {
    const queue = this.queue(parent);
    const task = newTask(queue.name, input, this.now(), () => this.unusedTaskName(queue.name));
    if (this.tasks.has(task.name) || (this.taskTombstones.get(task.name) ?? 0) > this.now())
      // "If a task's ID is identical to that of an existing task or a task that was deleted or
      // executed recently then the call will fail with ALREADY_EXISTS."
      throw new GrpcError(
        grpc.status.ALREADY_EXISTS,
        `Requested entity already exists: task ${task.name} exists, or existed within the last ${Math.round(this.taskTombstoneMs / 60_000)} minutes.`,
      );
    this.tasks.set(task.name, task);
    return task;
  }

  task(name: unknown): TaskRecord {
    const task = typeof name === 'string' ? this.tasks.get(name) : undefined;
    if (!task) {
      if (typeof name === 'string') this.queue(queueOfTask(name));
      throw taskMissing(String(name));
    }
    return task;
  }

  tasksOf(queue: string): TaskRecord[] {
    return [...this.tasks.values()].filter((t) => t.queue === queue);
  }

  /** A task is gone (deleted, succeeded, given up, purged): its name stays taken for the window. */
  finish(task: TaskRecord): void {
    this.tasks.delete(task.name);
    this.taskTombstones.set(task.name, this.now() + this.taskTombstoneMs);
    this.expireTombstones();
  }

  private unusedTaskName(queue: string): string {
    for (;;) {
      // Cloud Tasks gives an unnamed task a long numeric id.
      const id = Array.from({ length: 19 }, () => randomInt(10)).join('');
      const name = `${queue}/tasks/${id}`;
      if (!this.tasks.has(name) && !this.taskTombstones.has(name)) return name;
    }
  }

  private expireTombstones(): void {
    const now = this.now();
    for (const [name, until] of this.taskTombstones)
      if (until <= now) this.taskTombstones.delete(name);
  }
}
