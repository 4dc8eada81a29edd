import { celEnv, isCelError, parse, plan, type CelInput } from '@bufbuild/cel';

/** A compiled expression: evaluates against the admission variables, or returns why it failed. */
export type Program = (variables: Readonly<Record<string, unknown>>) => ProgramResult;
export type ProgramResult = { ok: true; value: unknown } | { ok: false; error: string };

const env = celEnv();

/**
 * Converts JSON-like data to CEL input: objects become maps (so `has()` and `in` work on any key,
 * as on the API server's unstructured objects) and whole numbers become CEL ints. The same rule as
 * the adapter's preconditions (functions/adapter/cel-values.ts); kept here so the emulator does
 * not depend on the code it emulates for.
 */
export function toCel(value: unknown): CelInput {
  if (Array.isArray(value)) return value.map(toCel);
  if (value === null || value === undefined) return null;
  if (typeof value === 'object')
    return new Map(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, toCel(v)]));
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  return value as CelInput;
}

/** Compiles `expression`; throws with the API server's wording (`compilation failed: ...`). */
export function compile(expression: string): Program {
  let evaluate: ReturnType<typeof plan>;
  try {
    evaluate = plan(env, parse(expression));
  } catch (error) {
    throw new Error(
      `compilation failed: ERROR: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return (variables) => {
    try {
      const activation = Object.fromEntries(
        Object.entries(variables).map(([name, value]) => [name, toCel(value)]),
      );
      const value = evaluate(activation);
      if (isCelError(value)) return { ok: false, error: value.message };
      return { ok: true, value };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  };
}
