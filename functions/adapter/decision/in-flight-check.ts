import type { Operation } from '../../../shared/status/outcome';
import { keptConvergence, type OwnStatus } from '../../../shared/status/own-status';
import type { Decision, DecisionInput } from './decision';

/**
 * While our status at this generation and operation says a run is under way (queued in Cloud
 * Tasks, or an execution that reported its start), the cluster is left alone, and checked with
 * Cloud Tasks or Cloud Run when it has been too long. Undefined when nothing is in flight.
 */
export function inFlightCheck(
  own: OwnStatus,
  operation: Operation,
  input: DecisionInput,
): Decision | undefined {
  const { data } = own;
  if (data.operation !== operation) return undefined;
  if (input.lost !== undefined && (input.lost === data.task || input.lost === data.execution))
    return undefined;
  const since = data.launched_at ?? own.lastReportTime;
  const age = since ? input.now.getTime() - Date.parse(since) : Number.POSITIVE_INFINITY;
  const seconds = Math.round(age / 1000);
  const at = since ?? input.now.toISOString();
  if (own.appliedReason === 'JobQueued' && data.task) {
    if (age < input.settings.launchCheckAfterMs)
      return skipInFlight(`Launch task ${data.task} queued ${seconds} s ago`);
    const kept = keptConvergence(own);
    return {
      kind: 'check-task',
      task: data.task,
      operation,
      attempt: data.attempt ?? 1,
      queuedAt: at,
      ...(kept ? { kept } : {}),
      message: `Launch task ${data.task} queued ${seconds} s ago has no execution on record; asking Cloud Tasks`,
    };
  }
  if (own.appliedReason !== 'JobLaunched' || !data.execution) return undefined;
  if (age < input.settings.executionCheckAfterMs)
    return skipInFlight(`Execution ${data.execution} launched ${seconds} s ago is still running`);
  return {
    kind: 'check-execution',
    execution: data.execution,
    operation,
    attempt: data.attempt ?? 1,
    launchedAt: at,
    message: `Execution ${data.execution} launched ${seconds} s ago has not reported; asking Cloud Run for its state`,
  };
}

const skipInFlight = (message: string): Decision => ({
  kind: 'skip',
  reason: 'in-flight',
  message,
});
