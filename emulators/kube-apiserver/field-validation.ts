import { isObject, type Json } from './merge-patch';
import { badRequest } from './status';

/**
 * Server-side field validation (`?fieldValidation=Strict`, which kubectl sends by default): a body
 * with fields the kind does not have is 400 BadRequest "strict decoding error: unknown field ...".
 * `Warn` and `Ignore` (and no parameter) accept the body.
 */
const OBJECT_META = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

const KINDS: Readonly<Record<string, Readonly<Record<string, ReadonlySet<string> | true>>>> = {
  Namespace: {
    apiVersion: true,
    kind: true,
    metadata: OBJECT_META,
    spec: new Set(['finalizers']),
    status: new Set(['phase', 'conditions']),
  },
  Secret: {
    apiVersion: true,
    kind: true,
    metadata: OBJECT_META,
    data: true,
    stringData: true,
    type: true,
    immutable: true,
  },
};

/** The unknown field paths of `body` for `kind` (top level, metadata, and known sub-objects). */
export function unknownFields(kind: string, body: Json): string[] {
  const fields = KINDS[kind];
  if (!fields || !isObject(body)) return [];
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    const known = fields[key];
    if (known === undefined) unknown.push(key);
    else if (known !== true && isObject(value))
      for (const child of Object.keys(value))
        if (!known.has(child)) unknown.push(`${key}.${child}`);
  }
  return unknown;
}

/** Throws the API server's 400 when `directive` is Strict and `body` has unknown fields. */
export function enforceFieldValidation(directive: string | null, kind: string, body: Json): void {
  if (directive !== 'Strict') return;
  const unknown = unknownFields(kind, body);
  if (unknown.length > 0)
    throw badRequest(
      `strict decoding error: ${unknown.map((field) => `unknown field "${field}"`).join(', ')}`,
    );
}
