import fs from 'node:fs';
import YAML from 'yaml';
import * as z from 'zod';
import { ConfigError } from '../../../shared/errors';
import {
  DEFAULT_PRECONDITIONS,
  preconditionSpecSchema,
  type PreconditionSpec,
} from '../decision/preconditions';

/**
 * Preconditions come from PRECONDITIONS_FILE (YAML or JSON list), PRECONDITIONS (the same, inline),
 * or the defaults. Each item: {name, expression, message?}.
 */
export function loadPreconditions(
  file: string | undefined,
  inline: string | undefined,
): readonly PreconditionSpec[] {
  if (file && inline)
    throw new ConfigError(
      'Invalid adapter function configuration: set PRECONDITIONS_FILE or PRECONDITIONS, not both.',
    );
  const variable = file ? 'PRECONDITIONS_FILE' : 'PRECONDITIONS';
  let text = inline;
  if (file) {
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      throw new ConfigError(
        `Invalid adapter function configuration: PRECONDITIONS_FILE: cannot read ${file}.`,
      );
    }
  }
  if (text === undefined) return DEFAULT_PRECONDITIONS;
  let parsed: unknown;
  try {
    parsed = YAML.parse(text);
  } catch (error) {
    throw new ConfigError(
      `Invalid adapter function configuration: ${variable}: not valid YAML or JSON (${error instanceof Error ? error.message.split('\n')[0] : 'parse error'}).`,
    );
  }
  const specs = z.array(preconditionSpecSchema).safeParse(parsed);
  if (!specs.success) {
    const issue = specs.error.issues[0];
    throw new ConfigError(
      `Invalid adapter function configuration: ${variable}: item ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}. Expected a list of {name, expression, message}.`,
    );
  }
  return specs.data;
}
