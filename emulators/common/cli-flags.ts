import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parseDurationMs } from '../../shared/config/durations';

/** How every duration flag and variable is written; docs/configuration.md says the same. */
export const DURATION_FORMAT =
  'a number with a unit: 500ms, 30s, 2m or 1h (a bare number means seconds)';

/** The exit code of a command given flags it does not understand (as the job CLI's 2). */
export const USAGE_EXIT_CODE = 2;

/** Bad command-line input: printed with the usage, exit USAGE_EXIT_CODE. */
export class UsageError extends Error {}

/** A positive duration flag in ms, or a UsageError naming the flag, the value and the format. */
export function flagDurationMs(flag: string, text: string): number {
  const ms = parseDurationMs(text);
  if (ms === undefined || ms <= 0)
    throw new UsageError(`--${flag} "${text}" is not a duration: use ${DURATION_FORMAT}.`);
  return ms;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * node:util parseArgs in strict mode, with its errors (unknown option, missing value) turned into
 * a short UsageError: every CLI of the project rejects what it does not understand the same way.
 */
export function parseFlags<O extends Options>(
  args: readonly string[],
  options: O,
  allowPositionals = false,
) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals, strict: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: string }).code;
    const option = /'(-[^']*?)(?: <value>)?'/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
      throw new UsageError(`unknown option ${option ?? message}.`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
      throw new UsageError(
        message.includes('argument missing')
          ? `${option ?? 'an option'} needs a value.`
          : `${option ?? 'an option'} does not take a value.`,
      );
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
      throw new UsageError(`unexpected argument ${/'([^']*)'/.exec(message)?.[1] ?? message}.`);
    throw new UsageError(message);
  }
}
