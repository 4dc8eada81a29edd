import type { Operation } from '../../../shared/status/outcome';
import type { OwnStatus } from '../../../shared/status/own-status';
import type { Decision, DecisionInput } from './decision';

/**
 * While our status at this generation and operation says a launch is under way (an intent, or a
 * running execution), the cluster is left alone, checked with Cloud Run when it has been too long,
 * or resolved when the intent has no execution yet. Undefined when nothing is in flight.
 */
export function inFlightCheck(
  own: OwnStatus,
  operation: Operation,
  input: DecisionInput,
): Decision | undefined {
  const { data } = own;
  if (data.operation !== operation) return undefined;
  if (input.lost !== undefined && (input.lost === data.launch_id || input.lost === data.execution))
    return undefined;
  const since = data.launched_at ?? own.lastReportTime;
  const age = since ? input.now.getTime() - Date.parse(since) : Number.POSITIVE_INFINITY;
  const seconds = Math.round(age / 1000);
  const intent = own.availableReason === 'JobLaunching' || data.launch_abandoned === true;
  if (intent && data.launch_id && !data.execution) {
    return {
      kind: 'resolve-launch',
      launchId: data.launch_id,
      operation,
      attempt: data.attempt ?? 1,
      since: since ?? input.now.toISOString(),
      abandoned: data.launch_abandoned === true,
      message: `Launch ${data.launch_id} recorded ${seconds} s ago has no execution on record; looking for it before launching again`,
    };
  }
  if (own.availableReason !== 'JobRunning' || !data.execution) return undefined;
  if (age < input.settings.executionCheckAfterMs)
    return {
      kind: 'skip',
      reason: 'in-flight',
      message: `Execution ${data.execution} launched ${seconds} s ago is still running`,
    };
  return {
    kind: 'check-execution',
    execution: data.execution,
    operation,
    attempt: data.attempt ?? 1,
    launchedAt: since ?? input.now.toISOString(),
    ...(data.launch_id ? { launchId: data.launch_id } : {}),
    message: `Execution ${data.execution} launched ${seconds} s ago has not reported; asking Cloud Run for its state`,
  };
}
