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
  const resolution: Resolution =
    decision.kind === 'check-task'
      ? resolveTask(
          decision,
          await deps.launchQueue.queue.inspect(decision.task),
          deps.settings,
          now,
        )
      : resolveExecution(decision, await deps.lookup.read(decision.execution), deps.settings, now);
  const fields = { decision: `in-flight-${resolution.kind}` };
  switch (resolution.kind) {
    case 'wait':
      if (resolution.overdue) log.warn(`${resolution.message}; past EXECUTION_TIMEOUT`, fields);
      else log.info(resolution.message, fields);
      return undefined;
    case 'relaunch':
      log.warn(resolution.message, fields);
      return { lost: resolution.lost };
    case 'refused': {
      if (decision.kind !== 'check-task') return undefined;
      // Stop the queue's retries first: a refusal is reported once, and relaunched (with a higher
      // attempt, so a new task) only after PERMANENT_FAILURE_RETRY_INTERVAL.
      await deps.launchQueue.queue.cancel(decision.task);
      const refusal = toAdapterError(
        { code: resolution.attempt.code, details: resolution.attempt.message },
        {
          service: 'Cloud Run',
          operation: 'RunJob (dispatched by the launch queue)',
          resource: deps.launchQueue.jobName,
          identityHint:
            'the launcher service account (roles/run.jobsExecutorWithOverrides on the job)',
        },
      );
      log.error(resolution.message, { ...fields, reason: refusal.reason, task: decision.task });
      await writer.write({
        kind: 'launch-failed',
        operation: decision.operation,
        reason: refusal.reason,
        message: refusal.message,
        attempt: decision.attempt,
        ...(decision.kept ? { kept: decision.kept } : {}),
      });
      return undefined;
    }
    case 'report':
      log.warn(resolution.message, fields);
      await writer.write(resolution.outcome, {
        at: observedAt(resolution.observedAt, now),
        generation: resolution.generation,
      });
      return undefined;
  }
}
