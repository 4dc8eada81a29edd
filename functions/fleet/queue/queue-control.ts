import type { CloudTasksClient } from '../../../shared/gcp/lazy/cloud-tasks';
import { toAdapterError } from '../../../shared/gcp/grpc-failure';
import { managementClusterOfQueue } from '../../../shared/launch-queue/management-cluster-queues';

/** The four Cloud Tasks calls the fleet command makes, and nothing else (least privilege). */
export type QueueAdmin = Pick<
  CloudTasksClient,
  'pauseQueue' | 'resumeQueue' | 'getQueue' | 'listQueues'
>;

/** Queue.State by number, for a client that answers enums as numbers. */
const STATES = ['STATE_UNSPECIFIED', 'RUNNING', 'PAUSED', 'DISABLED'];

const stateName = (state: unknown): string =>
  typeof state === 'number' ? (STATES[state] ?? String(state)) : String(state ?? 'unknown');

/** The grant the fleet command's Cloud Tasks calls need (docs/operations.md). */
const PERMISSION_FIX =
  'Grant the operator the fleet operator role on the launch queues (Terraform fleet_operators: cloudtasks.queues.pause, .resume, .get on the queues, .list on the project; docs/operations.md, "Operating the fleet: pause, resume, report, resync").';

function refused(error: unknown, operation: string, queue: string): Error {
  return toAdapterError(error, {
    service: 'Cloud Tasks',
    operation,
    resource: queue,
    permissionFix: PERMISSION_FIX,
  });
}

/**
 * PauseQueue or ResumeQueue on the launch queue; the queue's state as Cloud Tasks answers it.
 * Both are idempotent: pausing a paused queue leaves it paused. A paused queue keeps every task
 * and dispatches none ("If a queue is paused then the system will stop dispatching tasks until
 * the queue is resumed via ResumeQueue. Tasks can still be added when the queue is paused",
 * https://cloud.google.com/tasks/docs/reference/rest/v2/projects.locations.queues/pause); on
 * resume it dispatches them at its own rate limits.
 */
export async function setLaunchQueueState(
  admin: QueueAdmin,
  queue: string,
  action: 'pause' | 'resume',
): Promise<string> {
  try {
    const [answer] =
      action === 'pause'
        ? await admin.pauseQueue({ name: queue })
        : await admin.resumeQueue({ name: queue });
    return stateName(answer.state);
  } catch (error) {
    throw refused(error, action === 'pause' ? 'PauseQueue' : 'ResumeQueue', queue);
  }
}

/** The queue's state (GetQueue, cloudtasks.queues.get), for the report. */
export async function launchQueueState(admin: QueueAdmin, queue: string): Promise<string> {
  try {
    const [answer] = await admin.getQueue({ name: queue });
    return stateName(answer.state);
  } catch (error) {
    throw refused(error, 'GetQueue', queue);
  }
}

/** A launch queue and, for a management cluster's own, which one. */
export interface LaunchQueueRef {
  readonly name: string;
  readonly managementCluster?: string;
  /** As ListQueues answered it (RUNNING, PAUSED, ...). */
  readonly state?: string;
}

/**
 * The fleet's launch queue and every management cluster's (`LAUNCH_QUEUE-NAME`), as ListQueues
 * (cloudtasks.queues.list on the location) finds them: a fleet-wide pause pauses them all.
 */
export async function launchQueues(
  admin: QueueAdmin,
  launchQueue: string,
): Promise<LaunchQueueRef[]> {
  const location = launchQueue.slice(0, launchQueue.lastIndexOf('/queues/'));
  let found: { name?: string | null; state?: unknown }[];
  try {
    [found] = await admin.listQueues({ parent: location });
  } catch (error) {
    throw refused(error, 'ListQueues', location);
  }
  const perCluster = found
    .flatMap((queue) => {
      const name = queue.name ?? '';
      const managementCluster = managementClusterOfQueue(launchQueue, name);
      return managementCluster ? [{ name, managementCluster, state: stateName(queue.state) }] : [];
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  return [{ name: launchQueue }, ...perCluster];
}
