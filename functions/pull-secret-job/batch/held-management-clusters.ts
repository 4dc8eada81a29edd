import { googleClientOptions } from '../../../shared/gcp/client-options';
import type { CloudTasksClient } from '../../../shared/gcp/lazy/cloud-tasks';
import { managementClusterQueue } from '../../../shared/launch-queue/management-cluster-queues';
import type { Logger } from '../../../shared/logging/logger';

// A management cluster paused for maintenance (`fleet pause --management-cluster NAME`: its launch
// queue paused) holds its clusters' launches; a batch leaves its clusters alone too, and `fleet
// resume --management-cluster NAME` asks for their resync. The job reads the queue's state
// (GetQueue: cloudtasks.queues.get on the management clusters' queues, nothing else), once per
// management cluster and task.

/** Where the management clusters' launch queues are, when they exist. */
export interface ManagementClusterQueues {
  /** LAUNCH_QUEUE: projects/P/locations/L/queues/Q; a management cluster's is `Q-NAME`. */
  readonly launchQueue: string;
  readonly endpoint: { readonly apiEndpoint?: string; readonly emulatorHost?: string };
}

/** Queue.State PAUSED by number (google.cloud.tasks.v2.Queue.State), or by name. */
const isPaused = (state: unknown) => state === 2 || state === 'PAUSED';

export class HeldManagementClusters {
  private client: CloudTasksClient | undefined;
  private readonly held = new Map<string, Promise<boolean>>();

  constructor(
    private readonly queues: ManagementClusterQueues,
    private readonly logger: Logger,
  ) {}

  /** Whether the management cluster's queue is paused. A queue that cannot be read is not held (logged). */
  isHeld(managementCluster: string): Promise<boolean> {
    let answer = this.held.get(managementCluster);
    if (!answer) {
      answer = this.read(managementCluster);
      this.held.set(managementCluster, answer);
    }
    return answer;
  }

  private async read(managementCluster: string): Promise<boolean> {
    const name = managementClusterQueue(this.queues.launchQueue, managementCluster);
    try {
      this.client ??= await newClient(this.queues.endpoint);
      const [queue] = await this.client.getQueue({ name });
      const paused = isPaused(queue.state);
      if (paused)
        this.logger.info(
          `Management cluster ${managementCluster} is paused (queue ${name}): its clusters are left alone`,
          {
            management_cluster: managementCluster,
            decision: 'batch-held',
          },
        );
      return paused;
    } catch (error) {
      // Pausing is the operator's extra care; a queue we cannot read must not stop a rotation.
      this.logger.warn(
        `Could not read management cluster ${managementCluster}'s launch queue ${name} (treated as running): ${error instanceof Error ? error.message : String(error)}`,
        { management_cluster: managementCluster },
      );
      return false;
    }
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}

async function newClient(endpoint: ManagementClusterQueues['endpoint']): Promise<CloudTasksClient> {
  const { CloudTasksClient } = await import('../../../shared/gcp/lazy/cloud-tasks.js');
  return new CloudTasksClient(googleClientOptions(endpoint));
}
