import { isObject, type Json } from '../merge-patch';
import { metadataOf, type Obj } from '../object-book';

/** One additionalPrinterColumn of a CRD version. */
export interface PrinterColumn {
  readonly name: string;
  readonly type: string;
  readonly jsonPath: string;
  readonly description?: string;
  readonly priority?: number;
}

/**
 * A small JSONPath (the subset CRD printer columns use): `.a.b`, `[n]`, `[*]` and filters
 * `[?(@.key=="value")]` / `[?(@.key!="value")]`. Returns every value found.
 */
export function jsonPathValues(root: Json, path: string): Json[] {
  const tokens = path.match(/\.[^.[\]]+|\[\?\(@\.[^)]*\)\]|\[[^\]]*\]/g) ?? [];
  let nodes: Json[] = [root];
  for (const token of tokens) {
    const next: Json[] = [];
    for (const node of nodes) {
      if (token.startsWith('.')) {
        if (isObject(node) && node[token.slice(1)] !== undefined) next.push(node[token.slice(1)]!);
      } else if (token.startsWith('[?(')) {
        const filter = /^\[\?\(@\.([^=!]+)(==|!=)"([^"]*)"\)\]$/.exec(token);
        if (filter && Array.isArray(node)) {
          const [, key, op, value] = filter as unknown as [string, string, string, string];
          next.push(
            ...node.filter((item) => isObject(item) && (item[key] === value) === (op === '==')),
          );
        }
      } else if (token === '[*]') {
        if (Array.isArray(node)) next.push(...node);
        else if (isObject(node)) next.push(...Object.values(node));
      } else if (Array.isArray(node)) {
        const item = node[Number(token.slice(1, -1))];
        if (item !== undefined) next.push(item);
      }
    }
    nodes = next;
  }
  return nodes;
}

/** How long ago, as kubectl prints ages (`45s`, `12m`, `5h`, `3d`). */
export function humanAge(since: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

const cellOf = (column: PrinterColumn, object: Obj): Json => {
  const values = jsonPathValues(object, column.jsonPath);
  if (values.length === 0) return null;
  if (column.type === 'date' && typeof values[0] === 'string') return humanAge(values[0]);
  return values.length === 1
    ? values[0]!
    : values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(',');
};

/**
 * The `meta.k8s.io/v1` Table kubectl asks for (`Accept: ...;as=Table`): a Name column, the CRD's
 * printer columns (or Age when it has none), and each row's object as PartialObjectMetadata.
 */
export function printerTable(
  columns: readonly PrinterColumn[],
  items: readonly Obj[],
  resourceVersion: string,
): Obj {
  const shown =
    columns.length > 0
      ? columns
      : [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion },
    columnDefinitions: [
      {
        name: 'Name',
        type: 'string',
        format: 'name',
        description: 'Name must be unique within a namespace.',
        priority: 0,
      },
      ...shown.map((c) => ({
        name: c.name,
        type: c.type,
        format: '',
        description: c.description ?? '',
        priority: c.priority ?? 0,
      })),
    ],
    rows: items.map((item) => ({
      cells: [String(metadataOf(item).name), ...shown.map((c) => cellOf(c, item))],
      object: {
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: metadataOf(item),
      },
    })),
  };
}

/** True when the client asks for a Table (kubectl get does). */
export const wantsTable = (accept: string | undefined): boolean =>
  /;\s*as=Table/.test(accept ?? '');
