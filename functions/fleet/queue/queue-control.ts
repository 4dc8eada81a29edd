import type { CloudTasksClient } from '../../../shared/gcp/lazy/cloud-tasks';
import { toAdapterError } from '../../../shared/gcp/grpc-failure';

/** The three Cloud Tasks calls the fleet command makes, and nothing else (least privilege). */
export type QueueAdmin = Pick<CloudTasksClient, 'pauseQueue' | 'resumeQueue' | 'getQueue'>;

/** Queue.State by number, for a client that answers enums as numbers. */
const STATES = ['STATE_UNSPECIFIED', 'RUNNING', 'PAUSED', 'DISABLED'];

const stateName = (state: unknown): string =>
  typeof state === 'number' ? (STATES[state] ?? String(state)) : String(state ?? 'unknown');

/** The grant the fleet command's Cloud Tasks calls need (docs/operations.md). */
const PERMISSION_FIX =
  'Grant the operator the fleet operator role on the launch queue (Terraform fleet_operators: cloudtasks.queues.pause, .resume, .get on the queue only; docs/operations.md, "Operating the fleet: pause, resume, report, resync").';

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
