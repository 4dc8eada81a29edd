import type { ReadyProcess } from '../../common/child-process';
import type { QueueSeed } from '../../cloud-tasks/config';
import { LAUNCH_QUEUE, LAUNCHER_IDENTITY, MANAGEMENT_CLUSTERS } from './layout';
import { managementClusterQueue } from '../../../shared/launch-queue/management-cluster-queues';
import type { ClusterAccess } from './cluster-access';
import type { Launcher } from './launcher';

/**
 * The launch queue's rate unless the stack is told otherwise (StackOptions.launchQueue): a few
 * launches a second, a handful at once, as the local stack's single Cloud Run emulator can run.
 */
export const LOCAL_LAUNCH_RATE = {
  maxDispatchesPerSecond: 5,
  maxConcurrentDispatches: 10,
} as const;

/**
 * The launch queue's retries as Terraform's `launch_queue` defaults make them (variables.tf; a unit
 * test holds the two equal): production's, not quicker ones. A refused RunJob must still be in the
 * queue when the adapter looks at it (LAUNCH_CHECK_AFTER), as it is in production; a local queue
 * that gave up sooner would hide the refusal.
 */
export const TERRAFORM_LAUNCH_RETRY = {
  maxAttempts: 8,
  minBackoff: '10s',
  maxBackoff: '300s',
  maxDoublings: 4,
} as const;

/**
 * The Cloud Tasks emulator with the launch queue Terraform will create: the adapter enqueues a
 * named task per launch whose HTTP target is the Cloud Run Admin API's jobs.run.
 */
export function startLaunchQueue(
  launcher: Launcher,
  access: Pick<ClusterAccess, 'enforcedApiArgs' | 'metadata'>,
): Promise<ReadyProcess> {
  // The fleet's queue and, as Terraform's launch_queue.per_management_cluster makes them, one per
  // management cluster with the same settings.
  const queues: QueueSeed[] = [
    LAUNCH_QUEUE,
    ...MANAGEMENT_CLUSTERS.map((name) => managementClusterQueue(LAUNCH_QUEUE, name)),
  ].map((name) => ({
    name,
    rateLimits: { ...LOCAL_LAUNCH_RATE, ...launcher.options.launchQueue },
    retryConfig: TERRAFORM_LAUNCH_RETRY,
  }));
  const config = launcher.writePrivateFile('cloud-tasks.json', JSON.stringify({ queues }));
  return launcher.emulator('cloud-tasks', [
    '--config',
    config,
    ...access.enforcedApiArgs('cloud-tasks'),
    '--plaintext-admin',
    // OAuthToken tasks carry the launcher's real token, minted by the metadata server as the
    // Cloud Tasks service agent mints it: the Cloud Run emulator checks it against IAM.
    '--token-minter',
    `${access.metadata.endpoint}/_emulator/tokens/mint`,
  ]);
}

/** What the adapter is given to launch through the queue (the adapter reads them once rewritten). */
export function launchEnv(
  cloudTasks: ReadyProcess,
  cloudRun: ReadyProcess,
): Record<string, string> {
  return {
    // Over TLS with the adapter's own token (the emulator enforces IAM), as on Google's endpoint.
    CLOUD_TASKS_API_ENDPOINT: cloudTasks.info.endpoint as string,
    LAUNCH_QUEUE,
    LAUNCH_QUEUE_PER_MANAGEMENT_CLUSTER: 'true',
    LAUNCHER_SERVICE_ACCOUNT: LAUNCHER_IDENTITY,
    // The Cloud Run emulator serves the Admin API's REST jobs.run on its admin port.
    CLOUD_RUN_API_ENDPOINT: cloudRun.info.admin as string,
  };
}
