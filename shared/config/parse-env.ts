import type * as z from 'zod';
import { ConfigError } from '../errors';

/** Environment as Node gives it; config loaders take it as an argument so tests can inject one. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Parses environment variables with a zod object schema whose keys are the variable names.
 * Empty strings count as unset, as they do for most twelve-factor tools. On failure, throws a
 * ConfigError that names each variable and the rule it broke, never its value (some are secrets).
 */
export function parseEnv<S extends z.ZodType>(schema: S, env: Env, component: string): z.output<S> {
  const cleaned: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value.trim() !== '') cleaned[key] = value.trim();
  }
  const parsed = schema.safeParse(cleaned);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => ({
    variable: issue.path.length > 0 ? issue.path.join('.') : '(configuration)',
    problem: issue.message,
  }));
  throw new ConfigError(
    `Invalid ${component} configuration: ${problems.map((p) => `${p.variable}: ${p.problem}`).join('; ')}. ` +
      'Fix the environment variables named above and start again (see docs/configuration.md).',
    problems,
  );
}
