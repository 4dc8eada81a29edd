/** Reads `a.b.c` from a JSON-like value; undefined when any step is missing or not an object. */
export function readPath(value: unknown, path: string): unknown {
  let node: unknown = value;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A dot path of identifiers, e.g. `spec.pullSecret.data`. */
export const OBJECT_PATH = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$/;

/**
 * A copy of `value` without what is at each `a.b.c` path; only the objects along a path are
 * copied, the rest is shared. Paths that lead nowhere change nothing.
 */
export function omitPaths<T>(value: T, paths: readonly string[]): T {
  return paths.reduce<T>((current, path) => omitPath(current, path.split('.')) as T, value);
}

function omitPath(value: unknown, keys: readonly string[]): unknown {
  const [key, ...rest] = keys;
  if (key === undefined || value === null || typeof value !== 'object' || Array.isArray(value))
    return value;
  const record = value as Record<string, unknown>;
  if (!Object.hasOwn(record, key)) return value;
  if (rest.length === 0) {
    const { [key]: _omitted, ...others } = record;
    return others;
  }
  const inner = omitPath(record[key], rest);
  return inner === record[key] ? value : { ...record, [key]: inner };
}
