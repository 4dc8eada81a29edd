import { randomUUID } from 'node:crypto';
import { parseLabelSelector } from './label-selector';
import { applyJsonPatch } from './json-patch';
import {
  applyFields,
  parseManagedFields,
  recordUpdate,
  renderManagedFields,
  type ManagerEntry,
} from './managed-fields';
import { isObject, jsonMergePatch, strategicMergePatch, type Json } from './merge-patch';
import { alreadyExists, badRequest, conflict, KubeError, notFound } from './status';
import { normaliseNamespace, normaliseSecret } from './validation';

type Obj = { [key: string]: Json };

/** How a PATCH body is to be interpreted (its Content-Type). */
export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

/** The PATCH request's parameters: fieldManager, force (apply only), dryRun=All. */
export interface PatchOptions {
  readonly manager: string;
  readonly force: boolean;
  readonly dryRun?: boolean;
}

interface Stored {
  object: Obj;
  managers: ManagerEntry[];
}

const metadataOf = (object: Obj): Obj => (isObject(object.metadata) ? object.metadata : {});

/**
 * Namespaces and Secrets with the API server's bookkeeping: a cluster-wide resourceVersion,
 * uid, creationTimestamp, optimistic concurrency on replace, and field ownership for apply.
 */
export class KubeStore {
  private revision = 1;
  private readonly namespaces = new Map<string, Stored>();
  private readonly secrets = new Map<string, Stored>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  // ---- namespaces ---------------------------------------------------------------------------

  createNamespace(body: Obj, manager: string, dryRun = false): Obj {
    const object = normaliseNamespace(body);
    const name = metadataOf(object).name as string;
    if (this.namespaces.has(name)) throw alreadyExists('namespaces', name);
    const stored = this.stamp(object, { object: {}, managers: [] }, manager, true, dryRun);
    if (!dryRun) this.namespaces.set(name, stored);
    return this.render(stored);
  }

  /** PUT: replaces labels, annotations and spec; status stays the server's. */
  updateNamespace(name: string, body: Obj, manager: string, dryRun = false): Obj {
    const previous = this.namespaces.get(name);
    if (!previous) throw notFound('namespaces', name);
    const meta = metadataOf(body);
    if (meta.name !== undefined && meta.name !== name)
      throw badRequest('the name of the object does not match the name on the URL');
    const expected = meta.resourceVersion;
    if (
      typeof expected === 'string' &&
      expected !== '' &&
      expected !== metadataOf(previous.object).resourceVersion
    )
      throw conflict('namespaces', name);
    const object = normaliseNamespace({ ...body, metadata: { ...meta, name } }, previous.object);
    const stored = this.stamp(object, previous, manager, false, dryRun);
    if (!dryRun) this.namespaces.set(name, stored);
    return this.render(stored);
  }

  /** PATCH (merge, strategic, apply): `kubectl apply`, client- or server-side. */
  patchNamespace(name: string, type: PatchType, patch: Json, options: PatchOptions): Obj {
    const stored = this.patch(this.namespaces.get(name), 'namespaces', name, type, patch, options, {
      base: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
      normalise: (object, before) => normaliseNamespace(object, before),
    });
    if (!options.dryRun) this.namespaces.set(name, stored);
    return this.render(stored);
  }

  getNamespace(name: string): Obj {
    const stored = this.namespaces.get(name);
    if (!stored) throw notFound('namespaces', name);
    return this.render(stored);
  }

  listNamespaces(selector?: string | null): Obj {
    const matches = parseLabelSelector(selector);
    const items = [...this.namespaces.values()]
      .filter((s) => matches(labelsOf(s.object)))
      .map((s) => this.render(s));
    return this.list('NamespaceList', items);
  }

  /** Deletes a namespace and everything in it (immediately; a real cluster finalizes first). */
  deleteNamespace(name: string): Obj {
    const stored = this.namespaces.get(name);
    if (!stored) throw notFound('namespaces', name);
    this.namespaces.delete(name);
    for (const key of [...this.secrets.keys()])
      if (key.startsWith(`${name}/`)) this.secrets.delete(key);
    this.revision++;
    return { ...this.render(stored), status: { phase: 'Terminating' } };
  }

  hasNamespace(name: string): boolean {
    return this.namespaces.has(name);
  }

  // ---- secrets --------------------------------------------------------------------------------

  getSecret(namespace: string, name: string): Obj {
    const stored = this.secrets.get(`${namespace}/${name}`);
    if (!stored) throw notFound('secrets', name);
    return this.render(stored);
  }

  listSecrets(namespace: string | undefined, selector?: string | null): Obj {
    const matches = parseLabelSelector(selector);
    const items = [...this.secrets.entries()]
      .filter(([key]) => namespace === undefined || key.startsWith(`${namespace}/`))
      .filter(([, s]) => matches(labelsOf(s.object)))
      .map(([, s]) => this.render(s));
    return this.list('SecretList', items);
  }

  createSecret(namespace: string, body: Obj, manager: string, dryRun = false): Obj {
    this.requireNamespace(namespace);
    const secret = normaliseSecret(this.withNamespace(body, namespace));
    const name = metadataOf(secret).name as string;
    if (this.secrets.has(`${namespace}/${name}`)) throw alreadyExists('secrets', name);
    const stored = this.stamp(secret, { object: {}, managers: [] }, manager, true, dryRun);
    if (!dryRun) this.secrets.set(`${namespace}/${name}`, stored);
    return this.render(stored);
  }

  replaceSecret(namespace: string, name: string, body: Obj, manager: string, dryRun = false): Obj {
    const key = `${namespace}/${name}`;
    const previous = this.secrets.get(key);
    if (!previous) throw notFound('secrets', name);
    const meta = metadataOf(body);
    if (meta.name !== undefined && meta.name !== name) {
      throw new KubeError({
        ...conflict('secrets', name).status,
        code: 400,
        reason: 'BadRequest',
        message: 'the name of the object does not match the name on the URL',
      });
    }
    const expected = meta.resourceVersion;
    if (
      typeof expected === 'string' &&
      expected !== '' &&
      expected !== metadataOf(previous.object).resourceVersion
    ) {
      throw conflict('secrets', name);
    }
    const secret = normaliseSecret(
      this.withNamespace({ ...body, metadata: { ...meta, name } }, namespace),
      previous.object,
    );
    const stored = this.stamp(secret, previous, manager, false, dryRun);
    if (!dryRun) this.secrets.set(key, stored);
    return this.render(stored);
  }

  patchSecret(
    namespace: string,
    name: string,
    type: PatchType,
    patch: Json,
    options: PatchOptions,
  ): Obj {
    const key = `${namespace}/${name}`;
    const previous = this.secrets.get(key);
    if (type === 'apply' && !previous) this.requireNamespace(namespace);
    const stored = this.patch(previous, 'secrets', name, type, patch, options, {
      base: { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace } },
      normalise: (object, before) => normaliseSecret(this.withNamespace(object, namespace), before),
    });
    if (!options.dryRun) this.secrets.set(key, stored);
    return this.render(stored);
  }

  deleteSecret(
    namespace: string,
    name: string,
    preconditions?: { resourceVersion?: string; uid?: string },
  ): Obj {
    const key = `${namespace}/${name}`;
    const stored = this.secrets.get(key);
    if (!stored) throw notFound('secrets', name);
    const meta = metadataOf(stored.object);
    if (
      (preconditions?.resourceVersion && preconditions.resourceVersion !== meta.resourceVersion) ||
      (preconditions?.uid && preconditions.uid !== meta.uid)
    ) {
      throw conflict(
        'secrets',
        name,
        `Operation cannot be fulfilled on secrets "${name}": the precondition was not met`,
      );
    }
    this.secrets.delete(key);
    this.revision++;
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name, kind: 'secrets', uid: meta.uid as string },
    };
  }

  // ---- bookkeeping ----------------------------------------------------------------------------

  /**
   * A PATCH of any kind served here: JSON merge and strategic merge on an existing object (with
   * `metadata.resourceVersion` as a precondition), or server-side apply, which creates the object
   * when it does not exist and records field ownership (conflicts are 409 unless `force`).
   */
  private patch(
    previous: Stored | undefined,
    kind: string,
    name: string,
    type: PatchType,
    patch: Json,
    options: PatchOptions,
    how: { base: Obj; normalise: (object: Obj, previous: Obj | undefined) => Obj },
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

  private requireNamespace(namespace: string): void {
    if (!this.namespaces.has(namespace)) throw notFound('namespaces', namespace);
  }

  private withNamespace(body: Obj, namespace: string): Obj {
    const meta = metadataOf(body);
    if (meta.namespace !== undefined && meta.namespace !== namespace) {
      throw new KubeError({
        ...notFound('namespaces', namespace).status,
        code: 400,
        reason: 'BadRequest',
        message:
          'the namespace of the provided object does not match the namespace sent on the request',
      });
    }
    return { ...body, metadata: { ...meta, namespace } };
  }

  /** Sets server-managed metadata; records an Update for `manager` unless an apply already did. */
  private stamp(
    object: Obj,
    previous: Stored,
    manager: string,
    create: boolean,
    dryRun = false,
    recordAsUpdate = true,
  ): Stored {
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

  private render(stored: Stored): Obj {
    const meta = {
      ...metadataOf(stored.object),
      managedFields: renderManagedFields(stored.managers),
    };
    return structuredClone({ ...stored.object, metadata: meta });
  }

  private list(kind: string, items: Obj[]): Obj {
    return { kind, apiVersion: 'v1', metadata: { resourceVersion: String(this.revision) }, items };
  }

  private timestamp(): string {
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

function labelsOf(object: Obj): Record<string, string> {
  const labels = metadataOf(object).labels;
  return isObject(labels) ? (labels as Record<string, string>) : {};
}
