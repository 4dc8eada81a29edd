import * as z from 'zod';
import { PermanentError } from '../../../shared/errors';
import allowList from '../../../terraform/modules/pullsecret-adapter/run-job-overrides.json';

/**
 * The names the adapter may set on an execution. Terraform's file is the one list: the module's
 * audit-log alert (run-job-overrides.tf) fires on a RunJob whose overrides go beyond it, so the
 * code and the alert cannot disagree about what "expected" means.
 */
export const EXECUTION_OVERRIDE_NAMES: ReadonlySet<string> = new Set(
  z.object({ names: z.array(z.string().regex(/^[A-Z][A-Z0-9_]*$/)).min(1) }).parse(allowList).names,
);

/** The adapter was about to set a variable outside the allow-list: a change missed the list. */
export class UnexpectedOverrideError extends PermanentError {
  constructor(readonly names: readonly string[]) {
    super(
      `Refusing to launch the pull secret job with ${names.join(', ')}: the adapter sets only the variables listed in terraform/modules/pullsecret-adapter/run-job-overrides.json (anything else could point the job elsewhere, and raises the module's audit alert). Add the name there if the job is meant to read it.`,
      'UnexpectedExecutionOverride',
    );
  }
}

/**
 * RunJob's container override env for `env`, in order. Throws UnexpectedOverrideError naming every
 * variable outside the allow-list, so nothing is launched with it.
 */
export function runJobOverrideEnv(
  env: Readonly<Record<string, string>>,
): { name: string; value: string }[] {
  const unexpected = Object.keys(env).filter((name) => !EXECUTION_OVERRIDE_NAMES.has(name));
  if (unexpected.length > 0) throw new UnexpectedOverrideError(unexpected);
  return Object.entries(env).map(([name, value]) => ({ name, value }));
}
