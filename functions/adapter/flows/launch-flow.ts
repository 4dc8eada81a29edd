import { randomUUID } from 'node:crypto';
import { AdapterError } from '../../../shared/errors';
import { readOwnStatus } from '../../../shared/status/own-status';
import type { Cluster } from '../../../shared/hyperfleet/schemas';
import { buildStatus } from '../../../shared/status/status-builder';
import type { Logger } from '../../../shared/logging/logger';
import type { Decision } from '../decision/decision';
import type { AdapterDependencies } from './dependencies';
import type { LaunchRequest, PullSecretReference } from '../cloud-run/job-launcher';
import type { PutStatusOutcome } from '../../../shared/hyperfleet/client';
import type { StatusOutcome } from '../../../shared/status/outcome';
import { admitLaunch } from './launch-admission';
import { isQuotaExceeded, launchOrAdopt } from './launch-or-adopt';
import { launchPriority } from '../cloud-run/launch-rate';
import { reportStatus } from './report-status';
import { pullSecretReference } from '../decision/pull-secret-reference';
import { sleep } from '../../../shared/sleep';

/**
 * Launches the job for a decision: records the intent (a new launch id) in our status first, yields
 * when another instance's intent replaced it, then starts (or, after an ambiguous failure, adopts)
 * the execution and records it. The intent makes a lost RunJob answer or a crash between RunJob and
 * the status write visible to the next delivery, which then looks for the execution instead of
 * launching a second one. A clean launch costs exactly one Cloud Run call.
 *
 * Across instances the intent is a last-writer-wins register: the HyperFleet API has no
 * compare-and-set, but it discards (204) a report whose observed_time is older than the stored one.
 * An instance whose intent is discarded has lost at once. One whose intent was stored waits the
 * settle interval and reads back: it launches only if the stored launch id is still its own.
 * Assumption: instances that decided to launch the same generation at the same time (duplicates of
 * one event delivered together) write their intents within the settle interval of each other; an
 * intent written later than that finds the first one already recorded, and waits for it instead
 * (in-flight, within the launch grace). The wait is on launches only, never on an up-to-date event.
 */
export async function launchWithIntent(
  decision: Extract<Decision, { kind: 'launch' }>,
  cluster: Cluster,
  deps: AdapterDependencies,
  log: Logger,
  at: Date,
): Promise<void> {
  // The launch budget first: a launch without one leaves no trace (no intent to resolve later).
  if (!(await admitLaunch(decision.reason, deps, log))) return;
  const launchId = deps.newLaunchId?.() ?? randomUUID();
  const since = at.toISOString();
  const { operation, attempt } = decision;
  const launchReason = decision.reason;
  const intent = { kind: 'launching', operation, launchId, attempt, since, launchReason } as const;
  const write: StatusWriter = (outcome) =>
    reportStatus(deps.hyperfleet, log, cluster.id, buildStatus(outcome, cluster.generation, at));
  if (!(await intentHolds(intent, write, cluster, deps, log))) return;
  const reference = pullSecretReference(cluster, deps.pullSecret);
  let result;
  try {
    result = await launchOrAdopt(launchRequest(decision, cluster, launchId, reference), since, {
      launcher: deps.launcher,
      lookup: deps.lookup,
      retry: deps.launchRetry,
      logger: log,
      ...(deps.launchRate ? { rate: deps.launchRate } : {}),
    });
  } catch (error) {
    await recordLaunchFailure(error, intent, write, log, decision.reason);
    return;
  }
  log.info(`${result.adopted ? 'Adopted' : 'Launched'} execution ${result.execution}`, {
    execution: result.execution,
    operation,
    attempt,
    launch_id: launchId,
    launch_reason: launchReason,
    namespace: decision.namespace,
    ...(decision.managementCluster ? { management_cluster: decision.managementCluster } : {}),
    pull_secret_source: reference.source,
  });
  await write({
    kind: 'launched',
    operation,
    execution: result.execution,
    launchedAt: since,
    attempt,
    launchId,
    launchReason,
  });
}

/** Writes one outcome as our status at the decision's generation and moment. */
type StatusWriter = (outcome: StatusOutcome) => Promise<PutStatusOutcome>;
type Intent = Extract<StatusOutcome, { kind: 'launching' }>;

/**
 * Records the intent, waits the settle interval and reads it back: true when this instance's
 * intent is still the stored one, so it is the one to launch.
 */
async function intentHolds(
  intent: Intent,
  write: StatusWriter,
  cluster: Cluster,
  deps: AdapterDependencies,
  log: Logger,
): Promise<boolean> {
  if ((await write(intent)) === 'discarded') {
    log.info('A newer report exists for this generation; not launching', {
      decision: 'superseded',
    });
    return false;
  }
  // Another instance may be recording its own intent right now; the one stored after the settle
  // interval launches.
  await settle(deps);
  const stored = readOwnStatus(await deps.hyperfleet.listStatuses(cluster.id));
  if (stored?.data.launch_id === intent.launchId) return true;
  log.info(
    `Another instance recorded launch ${stored?.data.launch_id ?? '(none)'} for this generation; leaving the launch to it`,
    { decision: 'yield', launch_id: intent.launchId },
  );
  return false;
}

/** What the job is launched with: the decision's facts and the launch id of the intent. */
function launchRequest(
  decision: Extract<Decision, { kind: 'launch' }>,
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

/**
 * A launch that failed: a permanent failure is reported (and the event acknowledged); any other
 * marks the intent abandoned and is thrown again, so the redelivery relaunches at once. A quota
 * refusal of a background launch (resync, drift-reported) is acknowledged instead: it yields to new
 * work, and the cluster's next event launches it (without noise: one info line).
 */
async function recordLaunchFailure(
  error: unknown,
  intent: Intent,
  write: StatusWriter,
  log: Logger,
  launchReason: string,
): Promise<void> {
  if (error instanceof AdapterError && error.kind === 'permanent') {
    log.error(`Could not launch the pull secret job: ${error.message}`, {
      reason: error.reason,
      decision: 'launch-failed',
    });
    await write({
      kind: 'launch-failed',
      operation: intent.operation,
      reason: error.reason,
      message: error.message,
    });
    return;
  }
  // Nobody is launching this intent any more: say so, so the redelivery relaunches at once.
  const reason = error instanceof AdapterError ? error.reason : 'CloudRunUnavailable';
  const message = error instanceof Error ? error.message : String(error);
  await write({ ...intent, abandoned: { reason, message } }).catch((writeError: unknown) =>
    // Best effort: without it the redelivery waits out the launch grace before relaunching.
    log.warn('Could not record the abandoned launch; it is relaunched after the launch grace', {
      launch_id: intent.launchId,
      error: writeError instanceof Error ? writeError.message : String(writeError),
    }),
  );
  if (isQuotaExceeded(error) && launchPriority(launchReason) === 'background') {
    log.info(`Launch (${launchReason}) refused for quota; left to the cluster's next event`, {
      decision: 'launch-deferred',
      reason: launchReason,
    });
    return;
  }
  throw error;
}

/** The settle wait: LAUNCH_SETTLE_INTERVAL, through the injectable sleep. */
async function settle(deps: AdapterDependencies): Promise<void> {
  const ms = deps.launchSettleMs ?? 0;
  if (ms <= 0) return;
  await (deps.sleep ?? sleep)(ms);
}
