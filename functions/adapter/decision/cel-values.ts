import type { CelInput } from '@bufbuild/cel';

/**
 * Converts JSON-like data to CEL input: objects become maps (so `has()` and `in` work on any key)
 * and whole numbers become CEL ints (so `generation == 2` compares as the expression's author means).
 */
export function toCel(value: unknown): CelInput {
  if (Array.isArray(value)) return value.map(toCel);
  if (value === null || value === undefined) return null;
  if (typeof value === 'object')
    return new Map(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, toCel(v)]));
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  return value as CelInput;
}
