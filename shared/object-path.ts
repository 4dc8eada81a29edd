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
