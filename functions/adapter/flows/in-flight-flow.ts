import { AdapterError } from '../../../shared/errors';
import { toAdapterError } from '../../../shared/gcp/grpc-failure';
import type { Logger } from '../../../shared/logging/logger';
import type { Decision } from '../decision/decision';
import { resolveExecution, resolveTask, type Resolution } from '../decision/resolve-in-flight';
import type { AdapterDependencies } from './dependencies';
import { observedAt, type StatusWriter } from './report-status';

/**
 * Asks Cloud Tasks or Cloud Run about a run under way (off the happy path only): a launch queued
 * too long is looked up with GetTask, a long-silent execution read with GetExecution. Returns the
 * task or execution to treat as lost when the caller should decide again and relaunch.
 */
export async function resolveInFlight(
  decision: Extract<Decision, { kind: 'check-task' | 'check-execution' }>,
  deps: AdapterDependencies,
  log: Logger,
  writer: StatusWriter,
  now: Date,
): Promise<{ lost: string } | undefined> {
  let resolution: Resolution;
  try {
    resolution =
      decision.kind === 'check-task'
        ? resolveTask(
            decision,
            await deps.launchQueue.queue.inspect(decision.task),
            deps.settings,
            now,
          )
        : resolveExecution(
            decision,
            await deps.lookup.read(decision.execution),
            deps.settings,
            now,
          );
  } catch (error) {
    // Refused for good (the adapter may not read its task or execution): said in the status, as a
    // launch it cannot follow, rather than acknowledged in a log line only.
    if (!isPermanent(error)) throw error;
    await reportLaunchFailed(decision, error, log, writer);
    return undefined;
  }
  const fields = { decision: `in-flight-${resolution.kind}` };
  switch (resolution.kind) {
    case 'wait':
      if (resolution.overdue) log.warn(`${resolution.message}; past EXECUTION_TIMEOUT`, fields);
      else log.info(resolution.message, fields);
      return undefined;
    case 'relaunch':
      log.warn(resolution.message, fields);
      return { lost: resolution.lost };
    case 'refused':
      if (decision.kind === 'check-task')
        await reportRefusal(decision, resolution, deps, log, writer);
      return undefined;
    case 'report':
      log.warn(resolution.message, fields);
      await writer.write(resolution.outcome, {
        at: observedAt(resolution.observedAt, now),
        generation: resolution.generation,
      });
      return undefined;
  }
}

/**
 * RunJob refused for good (the queue's last attempt): the task is deleted first, so the queue stops
 * retrying (a refusal is reported once, and relaunched with a higher attempt, so a new task, only
 * after PERMANENT_FAILURE_RETRY_INTERVAL); a delete refused for good is said with the refusal (the
 * queue then retries RunJob until its attempts run out).
 */
async function reportRefusal(
  decision: Extract<Decision, { kind: 'check-task' }>,
  resolution: Extract<Resolution, { kind: 'refused' }>,
  deps: AdapterDependencies,
  log: Logger,
  writer: StatusWriter,
): Promise<void> {
  const cancelled = await deps.launchQueue.queue.cancel(decision.task).then(
    () => undefined,
    (error: unknown) => {
      if (!isPermanent(error)) throw error;
      return error;
    },
  );
  const refusal = toAdapterError(
    { code: resolution.attempt.code, details: resolution.attempt.message },
    {
      service: 'Cloud Run',
      operation: 'RunJob (dispatched by the launch queue)',
      resource: deps.launchQueue.jobName,
      identityHint: 'the launcher service account (roles/run.jobsExecutorWithOverrides on the job)',
    },
  );
  log.error(resolution.message, {
    decision: 'in-flight-refused',
    reason: refusal.reason,
    task: decision.task,
  });
  await writer.write({
    kind: 'launch-failed',
    operation: decision.operation,
    reason: refusal.reason,
    message: cancelled
      ? `${refusal.message} The refused task could not be deleted either: ${cancelled.message}`
      : refusal.message,
    attempt: decision.attempt,
    ...(decision.kept ? { kept: decision.kept } : {}),
  });
}

/** A launch the adapter cannot follow (its task or execution refused to it): reported once. */
async function reportLaunchFailed(
  decision: Extract<Decision, { kind: 'check-task' | 'check-execution' }>,
  error: AdapterError,
  log: Logger,
  writer: StatusWriter,
): Promise<void> {
  log.error(`Could not follow the pull secret job's launch: ${error.message}`, {
    reason: error.reason,
    decision: 'launch-failed',
  });
  await writer.write({
    kind: 'launch-failed',
    operation: decision.operation,
    reason: error.reason,
    message: error.message,
    attempt: decision.attempt,
    ...('kept' in decision && decision.kept ? { kept: decision.kept } : {}),
  });
}

/** A failure retrying cannot help (the caller lacks a grant, its credentials are refused). */
const isPermanent = (error: unknown): error is AdapterError =>
  error instanceof AdapterError && error.kind === 'permanent';
