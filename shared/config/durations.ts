import * as z from 'zod';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses "500ms", "30s", "5m", "6h" or a bare number of seconds into milliseconds. */
export function parseDurationMs(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) return undefined;
  const amount = Number(match[1]);
  const unit = match[2] ?? 's';
  const factor = UNIT_MS[unit];
  return factor === undefined ? undefined : Math.round(amount * factor);
}

/** A zod field for a duration variable with a default, e.g. `duration('30s')`. */
export function duration(defaultValue: string) {
  return z
    .string()
    .default(defaultValue)
    .transform((text, ctx) => {
      const ms = parseDurationMs(text);
      if (ms === undefined || ms <= 0) {
        ctx.addIssue({
          code: 'custom',
          message: 'must be a positive duration such as 500ms, 30s, 5m or 6h',
        });
        return z.NEVER;
      }
      return ms;
    });
}

/**
 * A zod field for a duration that may be zero ("0s" turns a wait off), at most `maxMs`, e.g.
 * `boundedDuration('1s', 10_000)`.
 */
export function boundedDuration(defaultValue: string, maxMs: number) {
  return z
    .string()
    .default(defaultValue)
    .transform((text, ctx) => {
      const ms = parseDurationMs(text);
      if (ms === undefined || ms < 0 || ms > maxMs) {
        ctx.addIssue({
          code: 'custom',
          message: `must be a duration from 0s to ${maxMs / 1000}s, such as 500ms or 1s`,
        });
        return z.NEVER;
      }
      return ms;
    });
}

/** A zod field for "true"/"false" (also 1/0, yes/no) with a default. */
export function booleanFlag(defaultValue: boolean) {
  return z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
    .default(defaultValue ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1' || v === 'yes');
}

const wholeNumber = () =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .refine((n) => n >= 1 && Number.isSafeInteger(n), 'must be a whole number of at least 1');

/** A zod field for an optional positive integer given as text. */
export function positiveInt() {
  return wholeNumber().optional();
}

/** A zod field for a positive integer given as text, with a default. */
export function positiveIntWithDefault(defaultValue: number) {
  return wholeNumber().default(defaultValue);
}
