import { isObject, type Json } from './merge-patch';

/** A leaf field of an object, as path segments (keys may contain dots, e.g. `.dockerconfigjson`). */
export type FieldPath = readonly string[];

/** Who owns which fields, per field manager and operation (server-side apply semantics). */
export interface ManagerEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  time: string;
  fields: Set<string>;
}

/** Identity and server-set fields that nobody owns. */
const UNOWNED = new Set(['apiVersion', 'kind', 'status']);
const UNOWNED_METADATA = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'managedFields',
  'generation',
]);

const key = (path: FieldPath) => JSON.stringify(path);
const unkey = (text: string) => JSON.parse(text) as string[];

/** Every owned leaf of `object` with its value. */
export function leafFields(object: Json): Map<string, Json> {
  const leaves = new Map<string, Json>();
  const walk = (value: Json, path: string[]) => {
    if (isObject(value) && Object.keys(value).length > 0) {
      for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
    } else leaves.set(key(path), value);
  };
  if (!isObject(object)) return leaves;
  for (const [k, v] of Object.entries(object)) {
    if (UNOWNED.has(k)) continue;
    if (k === 'metadata' && isObject(v)) {
      for (const [mk, mv] of Object.entries(v))
        if (!UNOWNED_METADATA.has(mk)) walk(mv, ['metadata', mk]);
    } else walk(v, [k]);
  }
  return leaves;
}

export function getPath(object: Json, path: FieldPath): Json | undefined {
  let node: Json | undefined = object;
  for (const segment of path) node = isObject(node) ? node[segment] : undefined;
  return node;
}

export function setPath(object: { [key: string]: Json }, path: FieldPath, value: Json): void {
  let node = object;
  path.slice(0, -1).forEach((segment) => {
    if (!isObject(node[segment])) node[segment] = {};
    node = node[segment] as { [key: string]: Json };
  });
  node[path[path.length - 1]!] = value;
}

export function deletePath(object: { [key: string]: Json }, path: FieldPath): void {
  const parents: { [key: string]: Json }[] = [object];
  for (const segment of path.slice(0, -1)) {
    const next = parents[parents.length - 1]![segment];
    if (!isObject(next)) return;
    parents.push(next);
  }
  delete parents[parents.length - 1]![path[path.length - 1]!];
  // Drop maps emptied by the deletion, as the API server does for labels, annotations and data.
  for (let i = parents.length - 1; i > 0; i--) {
    if (Object.keys(parents[i]!).length === 0) delete parents[i - 1]![path[i - 1]!];
  }
}

/** One field two managers disagree on. */
export interface ApplyConflict {
  readonly manager: string;
  readonly field: string;
}

/** Renders a path the way the API server names fields in conflicts: `.metadata.labels.app`. */
export function fieldName(pathKey: string): string {
  return unkey(pathKey)
    .map((segment) =>
      /^[A-Za-z0-9_-]+$/.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`,
    )
    .join('');
}

/**
 * Records an Update by `manager`: it takes ownership of every field it added or changed; fields
 * it removed are owned by nobody.
 */
export function recordUpdate(
  entries: ManagerEntry[],
  manager: string,
  before: Json,
  after: Json,
  time: string,
): ManagerEntry[] {
  const old = leafFields(before);
  const now = leafFields(after);
  const changed = [...now]
    .filter(([k, v]) => JSON.stringify(old.get(k)) !== JSON.stringify(v))
    .map(([k]) => k);
  const removed = [...old.keys()].filter((k) => !now.has(k));
  const next = entries.map((e) => ({
    ...e,
    fields: new Set([...e.fields].filter((f) => !changed.includes(f) && !removed.includes(f))),
  }));
  let own = next.find((e) => e.manager === manager && e.operation === 'Update');
  if (!own) {
    own = { manager, operation: 'Update', time, fields: new Set() };
    next.push(own);
  }
  changed.forEach((f) => own.fields.add(f));
  own.time = changed.length > 0 ? time : own.time;
  return next.filter((e) => e.fields.size > 0);
}

/**
 * Server-side apply of `applied` by `manager` onto `current`. Fields owned by another manager with
 * a different value conflict unless `force` (then ownership moves); fields this manager applied
 * before but no longer does are removed when nobody else owns them.
 */
export function applyFields(
  current: { [key: string]: Json },
  entries: ManagerEntry[],
  manager: string,
  applied: Json,
  force: boolean,
  time: string,
): { object: { [key: string]: Json }; entries: ManagerEntry[]; conflicts: ApplyConflict[] } {
  const wanted = leafFields(applied);
  const existing = leafFields(current);
  const conflicts: ApplyConflict[] = [];
  for (const entry of entries) {
    if (entry.manager === manager) continue;
    for (const field of entry.fields) {
      if (
        wanted.has(field) &&
        JSON.stringify(existing.get(field)) !== JSON.stringify(wanted.get(field))
      ) {
        conflicts.push({ manager: entry.manager, field: fieldName(field) });
      }
    }
  }
  if (conflicts.length > 0 && !force) return { object: current, entries, conflicts };

  const object = structuredClone(current);
  const previous =
    entries.find((e) => e.manager === manager && e.operation === 'Apply')?.fields ??
    new Set<string>();
  const others = entries.filter((e) => !(e.manager === manager && e.operation === 'Apply'));
  for (const field of previous) {
    if (!wanted.has(field) && !others.some((e) => e.fields.has(field)))
      deletePath(object, unkey(field));
  }
  for (const [field, value] of wanted) setPath(object, unkey(field), value);
  const next = others
    .map((e) => ({
      ...e,
      fields: new Set(
        [...e.fields].filter(
          (f) =>
            !(
              force &&
              wanted.has(f) &&
              JSON.stringify(existing.get(f)) !== JSON.stringify(wanted.get(f))
            ),
        ),
      ),
    }))
    .filter((e) => e.fields.size > 0);
  next.push({ manager, operation: 'Apply', time, fields: new Set(wanted.keys()) });
  return { object, entries: next, conflicts: [] };
}

/** The `metadata.managedFields` rendering (FieldsV1) of the ownership records. */
export function renderManagedFields(entries: readonly ManagerEntry[]): Json[] {
  return entries.map((entry) => {
    const fieldsV1: { [key: string]: Json } = {};
    for (const field of entry.fields) {
      let node = fieldsV1;
      for (const segment of unkey(field)) {
        const k = `f:${segment}`;
        if (!isObject(node[k])) node[k] = {};
        node = node[k] as { [key: string]: Json };
      }
    }
    return {
      manager: entry.manager,
      operation: entry.operation,
      apiVersion: 'v1',
      time: entry.time,
      fieldsType: 'FieldsV1',
      fieldsV1,
    };
  });
}

/**
 * The ownership records a request sets explicitly in `metadata.managedFields` (FieldsV1), as
 * kubectl does when it migrates client-side apply to server-side apply. A `.` key (the map itself)
 * and list element keys (`k:`, `v:`) make their parent the owned leaf.
 */
export function parseManagedFields(value: Json, fallbackTime: string): ManagerEntry[] {
  if (!Array.isArray(value)) return [];
  const paths = (node: Json, prefix: string[]): string[][] => {
    const children = isObject(node) ? Object.keys(node).filter((k) => k.startsWith('f:')) : [];
    if (children.length === 0) return prefix.length > 0 ? [prefix] : [];
    return children.flatMap((k) =>
      paths((node as { [key: string]: Json })[k]!, [...prefix, k.slice(2)]),
    );
  };
  return value.flatMap((entry) => {
    if (!isObject(entry) || typeof entry.manager !== 'string') return [];
    const operation = entry.operation === 'Apply' ? 'Apply' : 'Update';
    const fields = new Set(paths(entry.fieldsV1 ?? null, []).map((path) => key(path)));
    const time = typeof entry.time === 'string' ? entry.time : fallbackTime;
    return fields.size > 0 ? [{ manager: entry.manager, operation, time, fields }] : [];
  });
}
