import { selectorText } from '../../../shared/batch/batch-request';
import { AdapterError } from '../../../shared/errors';
import type { Logger } from '../../../shared/logging/logger';
import {
  decideFleetMessage,
  revoked,
  type FleetAction,
  type FleetMessage,
  type FleetSettings,
} from '../decision/fleet-message';
import { batchTaskCount, batchTaskId, type BatchLaunch } from '../launch-queue/batch-launch';
import type { LaunchQueue } from '../launch-queue/launch-queue';

// Acting on a fleet message (decision/fleet-message.ts decides): a batch launch through the launch
// queue, the revoked-default alert once Secret Manager's enabled versions confirm it, or a line.

export interface FleetRequestDependencies {
  readonly queue: LaunchQueue;
  /** LAUNCH_QUEUE: projects/P/locations/L/queues/Q. */
  readonly queueName: string;
  /** How many clusters the HyperFleet API holds (the list's `total`): it sizes the batch. */
  countClusters(): Promise<number>;
  /** The highest enabled version number of a secret (ListSecretVersions state:ENABLED); undefined: none. */
  newestEnabledVersion(secret: string): Promise<number | undefined>;
  readonly settings: FleetSettings;
  readonly logger: Logger;
}

/** Acts on one fleet message; throws on a transient failure so the message is redelivered. */
export async function handleFleetMessage(
  message: FleetMessage,
  deps: FleetRequestDependencies,
): Promise<void> {
  const decided = decideFleetMessage(message, deps.settings);
  const action =
    decided.kind === 'check-revocation' ? await checkRevocation(decided, deps) : decided;
  const log = deps.logger;
  if (action.kind === 'ignore') {
    log.info(action.message, { decision: 'fleet-message-ignored' });
    return;
  }
  if (action.kind === 'check-revocation') return;
  if (action.kind === 'alert') {
    log.error(action.message, { event: 'default-pull-secret-revoked', ...action.fields });
    return;
  }
  const taskCount =
    action.batch.selector.kind === 'clusters'
      ? 1
      : batchTaskCount(await deps.countClusters(), deps.settings.clustersPerTask);
  const batch: BatchLaunch = {
    ...action.batch,
    taskCount,
    taskTimeoutSeconds: Math.ceil(deps.settings.taskTimeoutMs / 1000),
  };
  const task = `${deps.queueName}/tasks/${batchTaskId(batch)}`;
  let queued;
  try {
    queued = await deps.queue.enqueueBatch(task, batch);
  } catch (error) {
    // Refused for good (no right on the queue, an override outside the allow-list): redelivering
    // cannot help, so the message is acknowledged with an ERROR line (the batch alert's filter).
    if (!(error instanceof AdapterError && error.kind === 'permanent')) throw error;
    log.error(`${action.message}: the batch could not be launched: ${error.message}`, {
      event: 'batch-failed',
      reason: batch.reason,
      selector: selectorText(batch.selector),
    });
    return;
  }
  log.info(
    `${action.message}: ${queued === 'queued' ? 'batch launched' : 'already launched'} (${taskCount} task${taskCount === 1 ? '' : 's'})`,
    {
      event: 'batch-launched',
      reason: batch.reason,
      selector: selectorText(batch.selector),
      task_count: taskCount,
      task,
      queued,
    },
  );
}

/**
 * A disabled or destroyed version of `latest`: the current default only when no newer version is
 * enabled (retiring an older one after a rotation is routine). A list that fails (no right, Secret
 * Manager down past its retries) alerts: a revoked default must not go unseen.
 */
async function checkRevocation(
  check: Extract<FleetAction, { kind: 'check-revocation' }>,
  deps: FleetRequestDependencies,
): Promise<FleetAction> {
  let newest: number | undefined;
  try {
    newest = await deps.newestEnabledVersion(check.secret);
  } catch (error) {
    deps.logger.warn(
      `Could not list ${check.secret}'s enabled versions (${error instanceof Error ? error.message : String(error)}): alerting as if version ${check.version} were the current default`,
      { decision: 'default-revocation-unchecked' },
    );
    return revoked(check.secret, check.version, check.eventType);
  }
  if (newest === undefined || Number(check.version) > newest)
    return revoked(check.secret, check.version, check.eventType);
  return {
    kind: 'ignore',
    message: `Secret Manager ${check.eventType} of ${check.secret} version ${check.version}: an older version (version ${newest} is enabled and current); nothing to do`,
  };
}
