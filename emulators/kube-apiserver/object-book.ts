import { randomUUID } from 'node:crypto';
import { applyJsonPatch } from './json-patch';
import {
  applyFields,
  parseManagedFields,
  recordUpdate,
  renderManagedFields,
  type ManagerEntry,
} from './managed-fields';
import { isObject, jsonMergePatch, strategicMergePatch, type Json } from './merge-patch';
import { conflict, KubeError, notFound } from './status';

export type Obj = { [key: string]: Json };

/** How a PATCH body is to be interpreted (its Content-Type). */
export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

/** The PATCH request's parameters: fieldManager, force (apply only), dryRun=All. */
export interface PatchOptions {
  readonly manager: string;
  readonly force: boolean;
  readonly dryRun?: boolean;
}

/** An object as stored, with its field ownership records. */
export interface Stored {
  object: Obj;
  managers: ManagerEntry[];
}

/** How a kind turns a candidate object into a valid one (validation, defaults, immutables). */
export interface KindRules {
  /** The object server-side apply starts from when it creates one. */
  readonly base: Obj;
  readonly normalise: (object: Obj, previous: Obj | undefined) => Obj;
}

export const metadataOf = (object: Obj): Obj => (isObject(object.metadata) ? object.metadata : {});

/**
 * The API server's bookkeeping shared by every kind: the cluster-wide resourceVersion, uid,
 * creationTimestamp and managedFields on each write, rendering, lists, and the PATCH flavours.
 */
export class ObjectBook {
  private revision = 1;

  constructor(private readonly now: () => Date) {}

  /** A write that stores nothing new (a delete) still moves the cluster's resourceVersion. */
  bump(): void {
    this.revision++;
  }

  /** The cluster's current resourceVersion, as a number (watch streams order events by it). */
  get currentRevision(): number {
    return this.revision;
  }

  /**
   * A PATCH of any kind served here: JSON merge and strategic merge on an existing object (with
   * `metadata.resourceVersion` as a precondition), or server-side apply, which creates the object
   * when it does not exist and records field ownership (conflicts are 409 unless `force`).
   */
  patch(
    previous: Stored | undefined,
    kind: string,
    name: string,
    type: PatchType,
    patch: Json,
    options: PatchOptions,
    how: KindRules,
  ): Stored {
    if (type === 'apply') {
      const base = previous?.object ?? how.base;
      const applied = applyFields(
        base,
        previous?.managers ?? [],
        options.manager,
        patch,
        options.force,
        this.timestamp(),
      );
      if (applied.conflicts.length > 0) throw applyConflict(kind, name, applied.conflicts);
      return this.stamp(
        how.normalise(applied.object, previous?.object),
        { object: base, managers: applied.entries },
        options.manager,
        !previous,
        options.dryRun,
        false,
      );
    }
    if (!previous) throw notFound(kind, name);
    if (type === 'json') return this.jsonPatch(previous, kind, name, patch, options, how.normalise);
    assertResourceVersion(patch, previous.object, kind, name);
    const merged = (type === 'merge' ? jsonMergePatch : strategicMergePatch)(
      previous.object,
      patch,
    );
    if (!isObject(merged)) throw notFound(kind, name);
    return this.stamp(
      how.normalise(merged, previous.object),
      previous,
      options.manager,
      false,
      options.dryRun,
    );
  }

  /**
   * A JSON patch runs against the object as clients see it (with managedFields and
   * resourceVersion, so `test` operations work). managedFields the patch sets replace the
   * ownership records, as the API server allows.
   */
  private jsonPatch(
    previous: Stored,
    kind: string,
    name: string,
    patch: Json,
    options: PatchOptions,
    normalise: (object: Obj, previous: Obj | undefined) => Obj,
  ): Stored {
    const rendered = this.render(previous);
    const patched = applyJsonPatch(rendered, patch);
    if (!isObject(patched)) throw notFound(kind, name);
    const meta = metadataOf(patched);
    const setManagers =
      JSON.stringify(meta.managedFields ?? null) !==
      JSON.stringify(metadataOf(rendered).managedFields ?? null);
    const managers = setManagers
      ? parseManagedFields(meta.managedFields ?? null, this.timestamp())
      : previous.managers;
    const stamped = this.stamp(
      normalise(patched, previous.object),
      { object: previous.object, managers },
      options.manager,
      false,
      options.dryRun,
      !setManagers,
    );
    return stamped;
  }

  /** Sets server-managed metadata; records an Update for `manager` unless an apply already did. */
  stamp(
    object: Obj,
    previous: Stored,
    manager: string,
    create: boolean,
    dryRun = false,
    recordAsUpdate = true,
  ): Stored {
    // An update that changes nothing is not stored: the resourceVersion stays and managedFields
    // keep their times, as on the real server (etcd3 store GuaranteedUpdate returns the current
    // object when the new bytes equal the stored ones; managedFields timestamps alone do not make
    // a change: IgnoreManagedFieldsTimestampsTransformer, Kubernetes 1.25+).
    // Server-side apply is left out: an apply that changes only ownership (managedFields) is a
    // change on the real server too, and its managers are computed before this point.
    if (!create && recordAsUpdate && unchanged(object, previous.object)) return previous;
    const meta = { ...metadataOf(object) };
    const old = metadataOf(previous.object);
    const time = this.timestamp();
    delete meta.managedFields;
    meta.uid = create ? randomUUID() : (old.uid as string);
    meta.creationTimestamp = create ? time : (old.creationTimestamp as string);
    meta.resourceVersion = String(dryRun ? this.revision : ++this.revision);
    for (const empty of ['labels', 'annotations'])
      if (isObject(meta[empty]) && Object.keys(meta[empty]).length === 0) delete meta[empty];
    const stamped = { ...object, metadata: meta };
    const managers = recordAsUpdate
      ? recordUpdate(previous.managers, manager, previous.object, stamped, time)
      : previous.managers;
    return { object: stamped, managers };
  }

  render(stored: Stored): Obj {
    const meta = {
      ...metadataOf(stored.object),
      managedFields: renderManagedFields(stored.managers),
    };
    return structuredClone({ ...stored.object, metadata: meta });
  }

  list(kind: string, items: Obj[]): Obj {
    return { kind, apiVersion: 'v1', metadata: { resourceVersion: String(this.revision) }, items };
  }

  timestamp(): string {
    return this.now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
  }
}

/**
 * A patch that names `metadata.resourceVersion` is a precondition, as on the real API server: it
 * applies only to that version of the object, otherwise 409 Conflict.
 */
function assertResourceVersion(patch: Json, current: Obj, kind: string, name: string): void {
  const meta = isObject(patch) && isObject(patch.metadata) ? patch.metadata : {};
  const expected = meta.resourceVersion;
  if (
    typeof expected === 'string' &&
    expected !== '' &&
    expected !== metadataOf(current).resourceVersion
  )
    throw conflict(kind, name);
}

function applyConflict(
  kind: string,
  name: string,
  conflicts: readonly { manager: string; field: string }[],
): KubeError {
  return new KubeError({
    ...conflict(kind, name).status,
    message: `Apply failed with ${conflicts.length} conflict${conflicts.length === 1 ? '' : 's'}: ${conflicts.map((c) => `conflict with "${c.manager}": ${c.field}`).join(', ')}`,
    details: {
      name,
      kind,
      causes: conflicts.map((c) => ({
        reason: 'FieldManagerConflict',
        message: `conflict with "${c.manager}"`,
        field: c.field,
      })),
    },
  });
}

/** The object as stored content: without the server-set resourceVersion and managedFields. */
function content(object: Obj): string {
  const meta = { ...metadataOf(object) };
  delete meta.resourceVersion;
  delete meta.managedFields;
  for (const empty of ['labels', 'annotations'])
    if (isObject(meta[empty]) && Object.keys(meta[empty]).length === 0) delete meta[empty];
  return canonical({ ...object, metadata: meta });
}

/** JSON with object keys sorted, so that key order does not count as a change. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

const unchanged = (next: Obj, stored: Obj) => content(next) === content(stored);
