import fs from 'node:fs';
import { ConfigError } from '../errors';

/** The exit code of a process that cannot start with its configuration (as the job's exit code 2). */
export const CONFIG_EXIT_CODE = 2;

// zod's wording for a variable that is not set at all; people read "not set" faster.
const MISSING = /^Invalid input: expected \w+, received undefined$/;

/**
 * The block printed when a function cannot start: which variables, what is wrong with each (never
 * its value), and what to do. `readmeSection` names the docs/configuration.md table that lists the variables.
 */
export function describeConfigFailure(
  component: string,
  error: ConfigError,
  readmeSection: string,
): string {
  const problems =
    error.problems.length > 0
      ? error.problems.map((p) => ({
          variable: p.variable,
          problem: MISSING.test(p.problem) ? 'is not set (required)' : p.problem,
        }))
      : [{ variable: '(configuration)', problem: error.message }];
  const width = Math.max(...problems.map((p) => p.variable.length));
  return [
    `${component} cannot start: its configuration is invalid.`,
    ...problems.map((p) => `  ${p.variable.padEnd(width)}  ${p.problem}`),
    `Set the variable${problems.length > 1 ? 's' : ''} above (docs/configuration.md, "${readmeSection}") and start it again.`,
    '',
  ].join('\n');
}

/**
 * Loads configuration at startup; on a ConfigError prints one clear block to stderr and exits
 * with CONFIG_EXIT_CODE instead of throwing, so a host such as functions-framework does not wrap
 * it in "Provided module can't be loaded" and a stack trace. Other errors are bugs and propagate.
 */
export function loadConfigOrExit<T>(component: string, readmeSection: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // Synchronous: the process exits right after, and stderr may be a pipe.
    fs.writeSync(2, describeConfigFailure(component, error, readmeSection));
    process.exit(CONFIG_EXIT_CODE);
  }
}
