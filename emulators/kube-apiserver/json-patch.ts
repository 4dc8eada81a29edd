import { isObject, type Json } from './merge-patch';
import { KubeError } from './status';

/**
 * RFC 6902 JSON patch (`application/json-patch+json`): add, remove, replace, move, copy and test
 * on JSON Pointer paths. kubectl sends one to migrate managed fields when a resource applied
 * client-side is first applied server-side (`test` on the resourceVersion, `replace` managedFields).
 */
export function applyJsonPatch(target: Json, patch: Json): Json {
  if (!Array.isArray(patch)) throw rejected('a JSON patch must be an array of operations');
  let document = structuredClone(target);
  for (const operation of patch) {
    if (
      !isObject(operation) ||
      typeof operation.op !== 'string' ||
      typeof operation.path !== 'string'
    )
      throw rejected('each JSON patch operation needs "op" and "path"');
    const path = pointer(operation.path);
    switch (operation.op) {
      case 'add':
        document = put(document, path, valueOf(operation), true);
        break;
      case 'replace':
        get(document, path);
        document = put(document, path, valueOf(operation), false);
        break;
      case 'remove':
        document = remove(document, path);
        break;
      case 'move':
      case 'copy': {
        if (typeof operation.from !== 'string') throw rejected(`"${operation.op}" needs "from"`);
        const from = pointer(operation.from);
        const value = structuredClone(get(document, from));
        if (operation.op === 'move') document = remove(document, from);
        document = put(document, path, value, true);
        break;
      }
      case 'test':
        if (JSON.stringify(get(document, path)) !== JSON.stringify(valueOf(operation)))
          throw rejected(`testing value ${operation.path} failed: test failed`);
        break;
      default:
        throw rejected(`unexpected kind of JSON patch operation: ${JSON.stringify(operation.op)}`);
    }
  }
  return document;
}

function rejected(message: string): KubeError {
  return new KubeError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `the server rejected our request due to an error in our request: ${message}`,
    reason: 'Invalid',
    code: 422,
  });
}

const valueOf = (operation: { [key: string]: Json }): Json => {
  if (!('value' in operation)) throw rejected(`"${String(operation.op)}" needs "value"`);
  return operation.value!;
};

function pointer(text: string): string[] {
  if (text === '') return [];
  if (!text.startsWith('/')) throw rejected(`invalid JSON pointer ${JSON.stringify(text)}`);
  return text
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function get(document: Json, path: readonly string[]): Json {
  let node: Json = document;
  for (const part of path) {
    const next: Json | undefined = Array.isArray(node)
      ? node[Number(part)]
      : isObject(node)
        ? node[part]
        : undefined;
    if (next === undefined) throw rejected(`path /${path.join('/')} does not exist`);
    node = next;
  }
  return node;
}

function put(document: Json, path: readonly string[], value: Json, insert: boolean): Json {
  if (path.length === 0) return value;
  const parent = get(document, path.slice(0, -1));
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : Number(last);
    if (!Number.isInteger(index) || index < 0 || index > parent.length)
      throw rejected(`index ${last} is out of range`);
    parent.splice(index, insert ? 0 : 1, value);
  } else if (isObject(parent)) parent[last] = value;
  else throw rejected(`path /${path.join('/')} has no parent object`);
  return document;
}

function remove(document: Json, path: readonly string[]): Json {
  get(document, path);
  const parent = get(document, path.slice(0, -1));
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else if (isObject(parent)) delete parent[last];
  return document;
}
