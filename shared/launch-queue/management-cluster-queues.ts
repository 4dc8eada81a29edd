// Launch queues per management cluster (issue 41: pause one management cluster for maintenance,
// nothing lost). With LAUNCH_QUEUE_PER_MANAGEMENT_CLUSTER on, a launch for a cluster placed on
// management cluster M goes to its own Cloud Tasks queue, `LAUNCH_QUEUE-M`, created by Terraform
// beside the fleet's queue; pausing that queue (PauseQueue) holds every launch for M while the
// adapter keeps deciding and recording (JobQueued), and ResumeQueue releases them at the queue's
// rate. Launches without a placement (the job's default cluster) and batch executions stay in
// LAUNCH_QUEUE. The adapter, the job's batch tasks, the fleet command and the local stack name
// the queues here, Terraform by the same rule (launch-queue.tf).

/** The queue of management cluster `name`: the fleet's queue's name, a hyphen, the name. */
export function managementClusterQueue(launchQueue: string, name: string): string {
  return `${launchQueue}-${name}`;
}

/** The management cluster a queue of `launchQueue`'s family is for; undefined for any other queue. */
export function managementClusterOfQueue(launchQueue: string, queue: string): string | undefined {
  if (!queue.startsWith(`${launchQueue}-`)) return undefined;
  const name = queue.slice(launchQueue.length + 1);
  return /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(name) ? name : undefined;
}

/** Where a launch goes: its management cluster's queue when there is one, else the fleet's. */
export function launchQueueFor(
  launchQueue: string,
  perManagementCluster: boolean,
  managementCluster: string | undefined,
): string {
  return perManagementCluster && managementCluster !== undefined
    ? managementClusterQueue(launchQueue, managementCluster)
    : launchQueue;
}
