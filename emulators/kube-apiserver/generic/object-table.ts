import type { Json } from '../merge-patch';
import { parseLabelSelector } from '../label-selector';
import {
  metadataOf,
  type ObjectBook,
  type Obj,
  type PatchOptions,
  type PatchType,
  type Stored,
} from '../object-book';
import { alreadyExists, badRequest, conflict, notFound } from '../status';
import {
  withTypeMeta,
  labelsOf,
  namespaceNotFound,
  objectMetaCauses,
  placeMetadata,
  throwIfInvalid,
} from './object-meta';
import { apiVersionOf, qualifiedResource, typeKey, type ResourceType } from './resource-type';
import { WatchHub, type WatchEvent } from './watch-hub';

/** Where a request points: the type, the version of the URL, the namespace ('' at cluster scope). */
export interface Target {
  readonly type: ResourceType;
  readonly version: string;
  readonly namespace: string;
}

/** Which part of the object a write changes: all but status, or only status (`/status`). */
export type Part = 'main' | 'status';

export interface WriteOptions {
  readonly manager: string;
  readonly dryRun: boolean;
  /** `?fieldValidation=Strict`: unknown fields are an error instead of being pruned. */
  readonly strict: boolean;
  readonly part: Part;
}

/** The fields that make up the desired state: a change in them is a new generation. */
const specOf = (object: Obj): string =>
  JSON.stringify(
    Object.fromEntries(
      Object.entries(object).filter(
        ([key]) => !['metadata', 'status', 'apiVersion', 'kind'].includes(key),
      ),
    ),
  );

/**
 * Objects of the generically served kinds (custom resources, CRDs, admission policies) with the
 * same bookkeeping as Secrets (ObjectBook): resourceVersion, uid, managedFields, PATCH flavours,
 * plus what custom resources add: metadata.generation, the status subresource, and watch events.
 */
export class ObjectTable {
  private readonly tables = new Map<string, Map<string, Stored>>();
  readonly watches = new WatchHub();

  constructor(
    private readonly book: ObjectBook,
    private readonly namespaceExists: (namespace: string) => boolean,
  ) {}

  get(target: Target, name: string): Obj {
    return this.render(target, this.stored(target, name));
  }

  /** The stored object or undefined (admission's oldObject, apply's create-or-update). */
  find(target: Target, name: string): Obj | undefined {
    const stored = this.table(target.type).get(this.key(target, name));
    return stored ? this.render(target, stored) : undefined;
  }

  list(target: Target, selector?: string | null): Obj {
    const matches = parseLabelSelector(selector);
    const items = [...this.table(target.type).values()]
      .filter((s) => target.namespace === '' || metadataOf(s.object).namespace === target.namespace)
      .filter((s) => matches(labelsOf(s.object)))
      .map((s) => this.render(target, s));
    return {
      kind: target.type.listKind,
      apiVersion: apiVersionOf(target.type, target.version),
      metadata: { resourceVersion: String(this.book.currentRevision) },
      items,
    };
  }

  create(target: Target, body: Obj, options: WriteOptions): Obj {
    this.requireNamespace(target);
    const typed = withTypeMeta(target.type, target.version, body);
    const candidate = placeMetadata(target.type, typed, target.namespace || undefined);
    const name = metadataOf(candidate).name;
    throwIfInvalid(target.type, candidate, objectMetaCauses(candidate));
    if (this.table(target.type).has(this.key(target, name as string)))
      throw alreadyExists(qualifiedResource(target.type), name as string);
    const object = this.complete(target, candidate, undefined, options);
    const stored = this.book.stamp(
      object,
      { object: {}, managers: [] },
      options.manager,
      true,
      options.dryRun,
    );
    return this.commit(target, stored, 'ADDED', options.dryRun);
  }

  replace(target: Target, name: string, body: Obj, options: WriteOptions): Obj {
    const previous = this.stored(target, name);
    const typed = withTypeMeta(target.type, target.version, body);
    const meta = metadataOf(typed);
    if (meta.name !== undefined && meta.name !== name)
      throw badRequest('the name of the object does not match the name on the URL');
    const expected = meta.resourceVersion;
    if (
      typeof expected === 'string' &&
      expected !== '' &&
      expected !== metadataOf(previous.object).resourceVersion
    )
      throw conflict(qualifiedResource(target.type), name);
    const candidate = placeMetadata(
      target.type,
      { ...typed, metadata: { ...meta, name } },
      target.namespace || undefined,
    );
    throwIfInvalid(target.type, candidate, objectMetaCauses(candidate));
    const object = this.complete(target, candidate, previous.object, options);
    const stored = this.book.stamp(object, previous, options.manager, false, options.dryRun);
    return this.commit(target, stored, 'MODIFIED', options.dryRun);
  }

  patch(
    target: Target,
    name: string,
    type: PatchType,
    patch: Json,
    options: WriteOptions & PatchOptions,
  ): { object: Obj; created: boolean } {
    const previous = this.table(target.type).get(this.key(target, name));
    if (!previous && type === 'apply') this.requireNamespace(target);
    const base: Obj = {
      apiVersion: apiVersionOf(target.type, target.version),
      kind: target.type.kind,
      metadata: target.type.namespaced ? { name, namespace: target.namespace } : { name },
    };
    const stored = this.book.patch(
      previous,
      qualifiedResource(target.type),
      name,
      type,
      patch,
      options,
      {
        base,
        normalise: (object, before) => {
          const candidate = placeMetadata(
            target.type,
            withTypeMeta(target.type, target.version, {
              ...object,
              metadata: { ...metadataOf(object), name },
            }),
            target.namespace || undefined,
          );
          throwIfInvalid(target.type, candidate, objectMetaCauses(candidate));
          return this.complete(target, candidate, before, options);
        },
      },
    );
    return {
      object: this.commit(target, stored, previous ? 'MODIFIED' : 'ADDED', options.dryRun === true),
      created: !previous,
    };
  }

  delete(
    target: Target,
    name: string,
    preconditions: { resourceVersion?: string; uid?: string } = {},
    dryRun = false,
  ): Obj {
    const stored = this.stored(target, name);
    const meta = metadataOf(stored.object);
    if (
      (preconditions.resourceVersion && preconditions.resourceVersion !== meta.resourceVersion) ||
      (preconditions.uid && preconditions.uid !== meta.uid)
    )
      throw conflict(
        qualifiedResource(target.type),
        name,
        `Operation cannot be fulfilled on ${qualifiedResource(target.type)} "${name}": the precondition was not met`,
      );
    const rendered = this.render(target, stored);
    if (dryRun) return rendered;
    this.table(target.type).delete(this.key(target, name));
    this.book.bump();
    this.publish(target.type, 'DELETED', {
      ...rendered,
      metadata: { ...metadataOf(rendered), resourceVersion: String(this.book.currentRevision) },
    });
    // Custom resources answer a delete with the object as it was (no finalizers here).
    return rendered;
  }

  /** Removes every object of a type (its CRD was deleted) or of a namespace (it was deleted). */
  purge(filter: { type?: Pick<ResourceType, 'group' | 'plural'>; namespace?: string }): void {
    for (const [key, table] of this.tables) {
      if (filter.type && key !== typeKey(filter.type)) continue;
      for (const [name, stored] of [...table]) {
        if (
          filter.namespace !== undefined &&
          metadataOf(stored.object).namespace !== filter.namespace
        )
          continue;
        table.delete(name);
      }
      if (filter.type && filter.namespace === undefined) this.tables.delete(key);
    }
  }

  /** Every stored object of a type, across namespaces, as stored (admission policies read these). */
  all(type: ResourceType): Obj[] {
    return [...this.table(type).values()].map((s) => s.object);
  }

  // ---- internals ------------------------------------------------------------------------------

  /** Status handling, the kind's own rules, and metadata.generation. */
  private complete(
    target: Target,
    candidate: Obj,
    previous: Obj | undefined,
    options: WriteOptions,
  ): Obj {
    let object: Obj = { ...candidate };
    if (target.type.statusSubresource) {
      if (options.part === 'status') {
        if (!previous)
          throw notFound(qualifiedResource(target.type), String(metadataOf(candidate).name));
        // PUT/PATCH on /status changes the status stanza and nothing else.
        object = { ...previous };
        if (candidate.status !== undefined) object.status = candidate.status;
        else delete object.status;
      } else if (previous && previous.status !== undefined) object.status = previous.status;
      else delete object.status;
    }
    object = target.type.normalise(object, previous, options.strict);
    const changed = !previous || specOf(previous) !== specOf(object);
    const generation = previous ? Number(metadataOf(previous).generation ?? 1) : 0;
    return {
      ...object,
      metadata: { ...metadataOf(object), generation: changed ? generation + 1 : generation },
    };
  }

  private commit(target: Target, stored: Stored, type: WatchEvent['type'], dryRun: boolean): Obj {
    const rendered = this.render(target, stored);
    if (dryRun) return rendered;
    this.table(target.type).set(this.key(target, metadataOf(stored.object).name as string), stored);
    this.publish(target.type, type, rendered);
    return rendered;
  }

  private publish(type: ResourceType, event: WatchEvent['type'], object: Obj): void {
    const meta = metadataOf(object);
    this.watches.publish({
      type: event,
      resource: typeKey(type),
      namespace: typeof meta.namespace === 'string' ? meta.namespace : '',
      revision: Number(meta.resourceVersion),
      object,
    });
  }

  private render(target: Target, stored: Stored): Obj {
    return { ...this.book.render(stored), apiVersion: apiVersionOf(target.type, target.version) };
  }

  private stored(target: Target, name: string): Stored {
    const stored = this.table(target.type).get(this.key(target, name));
    if (!stored) throw notFound(qualifiedResource(target.type), name);
    return stored;
  }

  private requireNamespace(target: Target): void {
    if (target.type.namespaced && !this.namespaceExists(target.namespace))
      throw namespaceNotFound(target.namespace);
  }

  private key(target: Target, name: string): string {
    return target.type.namespaced ? `${target.namespace}/${name}` : name;
  }

  private table(type: ResourceType): Map<string, Stored> {
    const key = typeKey(type);
    let table = this.tables.get(key);
    if (!table) this.tables.set(key, (table = new Map()));
    return table;
  }
}
