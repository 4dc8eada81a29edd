import { AdapterError } from '../../../shared/errors';
import type { Cluster } from '../../../shared/hyperfleet/schemas';
import type { Logger } from '../../../shared/logging/logger';
import { readOwnStatus, type OwnStatus } from '../../../shared/status/own-status';
import type { Decision } from '../decision/decision';
import { pullSecretReference } from '../../../shared/pull-secret/pull-secret-reference';
import type { LaunchRequest, PullSecretReference } from '../../../shared/launch/execution-env';
import { launchTaskId, launchTaskName } from '../launch-queue/task-name';
import type { EnqueueResult, LaunchQueue } from '../launch-queue/launch-queue';
import { launchQueueFor } from '../../../shared/launch-queue/management-cluster-queues';
import type { AdapterDependencies } from './dependencies';
import type { StatusWriter } from './report-status';

type LaunchDecision = Extract<Decision, { kind: 'launch' }>;

/**
 * Launches the job for a decision by queueing a named Cloud Tasks task, then records it. The name
 * comes from what was decided (cluster, generation, operation, attempt), so every instance and
 * every redelivery that takes the same decision names the same task: one creates it, the others
 * get ALREADY_EXISTS and record the same launch. No intent, no settle wait, no read-back: Cloud
 * Tasks' dedupe is the exclusion, and the queue holds the fleet-wide rate. A crash between
 * CreateTask and the status write is healed by the redelivery (same name, ALREADY_EXISTS).
 *
 * A refusal of CreateTask itself (no right on the queue, a bad request) is reported at once; a
 * transient failure is thrown, so the event is redelivered with backoff.
 */
/**
 * A placed cluster's launch waits in its management cluster's queue when there is one, so a pause
 * of that queue holds it (shared/launch-queue/management-cluster-queues.ts).
 */
const queueOf = (decision: LaunchDecision, deps: AdapterDependencies): string =>
  launchQueueFor(
    deps.launchQueue.name,
    deps.launchQueue.perManagementCluster === true,
    decision.managementCluster,
  );

/**
 * Enqueues in the management cluster's queue; when that queue is not there (a management cluster
 * placement names that Terraform made no queue for: unknown, or added since the last apply), in
 * the fleet's queue instead, where the job reports an unknown one as UnknownManagementCluster.
 * Cloud Tasks answers a queue that does not exist with NOT_FOUND, or with PERMISSION_DENIED to a
 * caller whose only grants are on existing queues (IAM is checked first): both fall back. An
 * existing queue whose grant is missing falls back too: launched, not held by its pause (logged).
 */
async function enqueueOrFleetQueue(
  deps: AdapterDependencies,
  task: string,
  request: Parameters<LaunchQueue['enqueue']>[1],
  log: Logger,
): Promise<{ task: string; queued: EnqueueResult }> {
  try {
    return { task, queued: await deps.launchQueue.queue.enqueue(task, request) };
  } catch (error) {
    const fleetTask = `${deps.launchQueue.name}/tasks/${task.split('/tasks/')[1]}`;
    const missing =
      error instanceof AdapterError && ['NotFound', 'PermissionDenied'].includes(error.reason);
    if (!missing || fleetTask === task) throw error;
    log.warn(
      `No launch queue for management cluster ${request.managementCluster ?? '(default)'}: launching through ${deps.launchQueue.name}`,
      {
        decision: 'launch-fleet-queue',
      },
    );
    return { task: fleetTask, queued: await deps.launchQueue.queue.enqueue(fleetTask, request) };
  }
}

/** The launch's log line: which task, why, where (the decision and its request). */
function logQueued(
  log: Logger,
  decision: LaunchDecision,
  task: string,
  queued: EnqueueResult,
  request: LaunchRequest,
): void {
  const { operation, attempt, kept } = decision;
  log.info(
    queued === 'queued'
      ? `Queued launch task ${task}`
      : `Launch task ${task} already exists (another delivery queued it); recording it`,
    {
      decision: queued === 'queued' ? 'launch-queued' : 'launch-already-queued',
      task,
      operation,
      attempt,
      launch_reason: decision.reason,
      background: kept !== undefined,
      namespace: decision.namespace,
      ...(decision.managementCluster ? { management_cluster: decision.managementCluster } : {}),
      pull_secret_source: request.pullSecret.source,
    },
  );
}

export async function launchThroughQueue(
  decision: LaunchDecision,
  cluster: Cluster,
  deps: AdapterDependencies,
  log: Logger,
  writer: StatusWriter,
): Promise<void> {
  const { operation, attempt, kept } = decision;
  const identity = { clusterId: cluster.id, generation: cluster.generation, operation, attempt };
  const request = launchRequest(
    decision,
    cluster,
    launchTaskId(identity),
    pullSecretReference(cluster, deps.pullSecret),
  );
  let made;
  try {
    made = await enqueueOrFleetQueue(
      deps,
      launchTaskName(queueOf(decision, deps), identity),
      request,
      log,
    );
  } catch (error) {
    if (!(error instanceof AdapterError && error.kind === 'permanent')) throw error;
    log.error(`Could not queue the pull secret job's launch: ${error.message}`, {
      reason: error.reason,
      decision: 'launch-failed',
    });
    await writer.write({
      kind: 'launch-failed',
      operation,
      reason: error.reason,
      message: error.message,
      attempt,
      ...(kept ? { kept } : {}),
    });
    return;
  }
  const { task, queued } = made;
  logQueued(log, decision, task, queued, request);

  // Another delivery queued it: its status row, and the execution's own reports, may have landed
  // since this decision read the status. Every write takes a moment after that read, so a stale
  // JobQueued would replace a newer JobLaunched or result (the API keeps the later observed_time):
  // read again, and record the launch only if nothing has recorded this attempt yet. The creator
  // of the task needs no such read: no execution can report before the task it creates.
  if (queued !== 'queued' && (await launchRecorded(deps, cluster, attempt))) {
    log.info(`Launch task ${task} is already recorded in our status; nothing to write`, {
      decision: 'launch-already-recorded',
      task,
      attempt,
    });
    return;
  }
  const at = writer.nextTime();
  await writer.write(
    {
      kind: 'queued',
      operation,
      task,
      attempt,
      since: at.toISOString(),
      launchReason: decision.reason,
      ...(kept ? { kept } : {}),
    },
    { at },
  );
}

/** What the job is launched with: the decision's facts, and the task id as LAUNCH_ID. */
function launchRequest(
  decision: LaunchDecision,
  cluster: Cluster,
  launchId: string,
  pullSecret: PullSecretReference,
): LaunchRequest {
  return {
    clusterId: cluster.id,
    clusterName: cluster.name,
    generation: cluster.generation,
    gcpProjectId: decision.gcpProjectId,
    namespace: decision.namespace,
    ...(decision.managementCluster ? { managementCluster: decision.managementCluster } : {}),
    operation: decision.operation,
    attempt: decision.attempt,
    launchId,
    pullSecret,
  };
}

/** Whether our status, read now, records this attempt of this generation (or newer work). */
async function launchRecorded(
  deps: AdapterDependencies,
  cluster: Cluster,
  attempt: number,
): Promise<boolean> {
  return recordsAttempt(
    readOwnStatus(await deps.hyperfleet.listStatuses(cluster.id)),
    cluster.generation,
    attempt,
  );
}

/**
 * Pure: our status records `attempt` of `generation` already (its queued row, the execution's
 * start or result: every row of a generation keeps its attempt), or newer work.
 */
export function recordsAttempt(
  own: OwnStatus | undefined,
  generation: number,
  attempt: number,
): boolean {
  if (!own) return false;
  if (own.observedGeneration !== generation) return own.observedGeneration > generation;
  return (own.data.attempt ?? 0) >= attempt;
}
