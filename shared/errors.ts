/** Whether retrying the same work can succeed: transient failures are retried, permanent ones reported. */
export type FailureKind = 'permanent' | 'transient';

/**
 * An expected failure of the adapter, the job or the reporter. `reason` is a CamelCase code that
 * ends up in HyperFleet status conditions and log-based metrics; `message` is safe to show to
 * people (it never contains secret material) and says what failed and what to do.
 */
export class AdapterError extends Error {
  constructor(
    message: string,
    readonly reason: string,
    readonly kind: FailureKind,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A failure that will happen again on retry: bad input, missing rights, a foreign resource. */
export class PermanentError extends AdapterError {
  constructor(message: string, reason: string, options?: { cause?: unknown }) {
    super(message, reason, 'permanent', options);
  }
}

/** A failure that may go away on retry: unavailable services, timeouts, quota. */
export class TransientError extends AdapterError {
  constructor(message: string, reason: string, options?: { cause?: unknown }) {
    super(message, reason, 'transient', options);
  }
}

/** One variable and the rule it broke (never its value: some are secrets). */
export interface ConfigProblem {
  readonly variable: string;
  readonly problem: string;
}

/** Configuration that cannot be used; the message names every offending variable. */
export class ConfigError extends PermanentError {
  constructor(
    message: string,
    /** Each variable and its problem, when the loader knows them (startup prints them as a list). */
    readonly problems: readonly ConfigProblem[] = [],
  ) {
    super(message, 'InvalidConfiguration');
  }
}

/** True when `error` is an AdapterError of the given kind. */
export function isFailureKind(error: unknown, kind: FailureKind): boolean {
  return error instanceof AdapterError && error.kind === kind;
}

/** A message safe to show for any thrown value; unknown errors keep only their message. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
