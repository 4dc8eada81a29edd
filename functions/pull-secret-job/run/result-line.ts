import type { ConfigError } from '../../../shared/errors';
import { RESULT_LINE_KEY, type JobResult } from '../../../shared/job-result';
import type { SecretRedactor } from '../../../shared/logging/secret-redactor';
import type { TraceLogFields } from '../telemetry/result-trace-fields';
import { describeFailure, exitCodeFor } from './job-outcome';

/** Set once the result line is out: a termination signal after it must not write a second one. */
let resultWritten = false;

export const resultWasWritten = (): boolean => resultWritten;

/**
 * Prints the result as the last output line (also a valid Cloud Logging entry, filed under the
 * execution's trace) and returns the exit code.
 */
export function writeResult(
  result: JobResult,
  redactor: SecretRedactor,
  trace: TraceLogFields | Record<string, never>,
): number {
  const line = {
    severity: result.outcome === 'failed' ? 'ERROR' : 'INFO',
    message: `Pull secret job ${result.outcome}: ${result.reason}`,
    ...trace,
    [RESULT_LINE_KEY]: redactor.redact(result),
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
  resultWritten = true;
  return exitCodeFor(result);
}

/** The result of a run whose configuration was refused, before anything else exists. */
export function configFailure(
  error: ConfigError,
  env: NodeJS.ProcessEnv,
  dryRun: boolean,
): JobResult {
  return {
    outcome: 'failed',
    operation: env.OPERATION === 'delete' ? 'delete' : 'apply',
    dry_run: dryRun,
    cluster_id: env.CLUSTER_ID ?? '',
    phases: [],
    ...describeFailure(error),
    durations_ms: {},
    finished_at: new Date().toISOString(),
  };
}
