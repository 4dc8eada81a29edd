import { createHash } from 'node:crypto';
import type { Operation } from '../../../shared/status/outcome';

/** What a launch is about: every instance that decides it computes the same task name. */
export interface LaunchIdentity {
  readonly clusterId: string;
  readonly generation: number;
  readonly operation: Operation;
  readonly attempt: number;
}

/**
 * The task id of a launch: `HASH-CLUSTER-gGEN-OP-aATTEMPT`. Derived from what the decision is about,
 * never from the instance or the clock, so duplicates of one event on any number of instances
 * create one task (the rest get ALREADY_EXISTS). The hashed prefix spreads the names over Cloud
 * Tasks' key space: "using hashed strings for the task id or for the prefix of the task id is
 * recommended" since sequential names increase latency
 * (https://cloud.google.com/tasks/docs/reference/rest/v2/projects.locations.queues.tasks#Task,
 * field `name`). Cluster ids are DNS labels (decision/rules.ts `invalidIdentity`), so the id
 * keeps to the allowed letters, digits, hyphens and underscores, far below 500 characters.
 */
export function launchTaskId(launch: LaunchIdentity): string {
  const { clusterId, generation, operation, attempt } = launch;
  const prefix = createHash('sha256').update(clusterId).digest('hex').slice(0, 8);
  return `${prefix}-${clusterId}-g${generation}-${operation}-a${attempt}`;
}

/** The task's full name in `queue` (projects/P/locations/L/queues/Q). */
export function launchTaskName(queue: string, launch: LaunchIdentity): string {
  return `${queue}/tasks/${launchTaskId(launch)}`;
}
