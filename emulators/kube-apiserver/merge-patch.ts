/** A JSON value as parsed from a request body. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (value: unknown): value is { [key: string]: Json } =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** RFC 7386 JSON merge patch: objects merge recursively, null deletes, everything else replaces. */
export function jsonMergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const result: { [key: string]: Json } = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = jsonMergePatch(result[key] ?? null, value);
  }
  return result;
}

/**
 * Strategic merge patch for the core/v1 kinds served here (Secret, Namespace). Their fields are
 * maps (merged like a merge patch) and lists without merge keys (replaced), so the strategy
 * reduces to a merge patch plus the `$patch: replace|delete` directives on maps.
 */
export function strategicMergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  if (patch.$patch === 'delete') return null;
  if (patch.$patch === 'replace') {
    const { $patch: _directive, ...rest } = patch;
    return rest;
  }
  const result: { [key: string]: Json } = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) continue;
    if (value === null) delete result[key];
    else {
      const merged = strategicMergePatch(result[key] ?? null, value);
      if (merged === null) delete result[key];
      else result[key] = merged;
    }
  }
  return result;
}

export { isObject };
