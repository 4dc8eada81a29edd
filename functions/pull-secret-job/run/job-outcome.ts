import { AdapterError, ConfigError } from '../../../shared/errors';
import { EXIT_CODES, type JobResult } from '../../../shared/job-result';

/** The reason and message reported for a failure; unknown errors become InternalError. */
export function describeFailure(
  error: unknown,
): Pick<JobResult, 'reason' | 'message' | 'failure_kind'> {
  if (error instanceof AdapterError) {
    return { reason: error.reason, message: error.message, failure_kind: error.kind };
  }
  const detail = error instanceof Error ? error.message : String(error);
  return {
    reason: 'InternalError',
    message: `Unexpected error in the pull secret job: ${detail}. Check the job logs; the next execution will try again.`,
    failure_kind: 'transient',
  };
}

/** The process exit code for a result: configuration, permanent and transient failures differ. */
export function exitCodeFor(result: JobResult): number {
  // A duplicate did its job by standing aside: exiting non-zero would make Cloud Run retry it.
  if (result.outcome === 'succeeded' || result.outcome === 'stood-aside') return EXIT_CODES.success;
  if (result.reason === new ConfigError('').reason) return EXIT_CODES.configuration;
  if (result.reason === 'InternalError') return EXIT_CODES.internal;
  return result.failure_kind === 'permanent' ? EXIT_CODES.permanent : EXIT_CODES.transient;
}
