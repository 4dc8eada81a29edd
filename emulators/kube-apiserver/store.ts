import { parseLabelSelector } from './label-selector';
import { isObject, type Json } from './merge-patch';
import {
  metadataOf,
  ObjectBook,
  type Obj,
  type PatchOptions,
  type PatchType,
  type Stored,
} from './object-book';
import { ObjectTable } from './generic/object-table';
import { isTerminating, markedTerminating, NamespaceController } from './namespace-termination';
import { alreadyExists, badRequest, conflict, KubeError, notFound } from './status';
import { normaliseNamespace, normaliseSecret } from './validation';

export type { PatchOptions, PatchType } from './object-book';

/**
 * Namespaces and Secrets with the API server's bookkeeping: a cluster-wide resourceVersion,
 * uid, creationTimestamp, optimistic concurrency on replace, and field ownership for apply.
 */
export class KubeStore {
  private readonly namespaces = new Map<string, Stored>();
  private readonly secrets = new Map<string, Stored>();

  private readonly book: ObjectBook;
  /** Custom resources, CRDs and admission policies, on the same resourceVersion sequence. */
  readonly objects: ObjectTable;
  /**
   * Removes a Terminating namespace with its contents, unless a test holds it
   * (namespace-termination.ts).
   */
  readonly namespaceController = new NamespaceController((name) => this.finishNamespace(name));

  constructor(now: () => Date = () => new Date()) {
    this.book = new ObjectBook(now);
    this.objects = new ObjectTable(this.book, (namespace) => this.namespaces.has(namespace));
  }

  // ---- namespaces ---------------------------------------------------------------------------

  createNamespace(body: Obj, manager: string, dryRun = false): Obj {
    const object = normaliseNamespace(body);
    const name = metadataOf(object).name as string;
    const existing = this.namespaces.get(name);
    if (existing) {
      const error = alreadyExists('namespaces', name);
      // The generic registry says why the name is still taken (apiserver
      // pkg/registry/generic/registry/store.go, `Create`: "object is being deleted: ...").
      if (!isTerminating(existing.object)) throw error;
      throw new KubeError({
        ...error.status,
        message: `object is being deleted: ${error.status.message}`,
      });
    }
    const stored = this.book.stamp(object, { object: {}, managers: [] }, manager, true, dryRun);
    if (!dryRun) this.namespaces.set(name, stored);
    return this.book.render(stored);
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
    const stored = this.book.stamp(object, previous, manager, false, dryRun);
    if (!dryRun) this.namespaces.set(name, stored);
    return this.book.render(stored);
  }

  /** PATCH (merge, strategic, apply): `kubectl apply`, client- or server-side. */
  patchNamespace(name: string, type: PatchType, patch: Json, options: PatchOptions): Obj {
    const stored = this.book.patch(
      this.namespaces.get(name),
      'namespaces',
      name,
      type,
      patch,
      options,
      {
        base: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
        normalise: (object, before) => normaliseNamespace(object, before),
      },
    );
    if (!options.dryRun) this.namespaces.set(name, stored);
    return this.book.render(stored);
  }

  getNamespace(name: string): Obj {
    const stored = this.namespaces.get(name);
    if (!stored) throw notFound('namespaces', name);
    return this.book.render(stored);
  }

  listNamespaces(selector?: string | null): Obj {
    const matches = parseLabelSelector(selector);
    const items = [...this.namespaces.values()]
      .filter((s) => matches(labelsOf(s.object)))
      .map((s) => this.book.render(s));
    return this.book.list('NamespaceList', items);
  }

  /**
   * DELETE: the first one marks the namespace Terminating and answers it so; a later one answers it
   * as it is. The namespace controller then removes its contents and the namespace, at once unless
   * a test holds it (namespace-termination.ts).
   */
  deleteNamespace(name: string, dryRun = false): Obj {
    const stored = this.namespaces.get(name);
    if (!stored) throw notFound('namespaces', name);
    // Marking is the registry's own update, not a client's: managedFields stay as they were.
    const marked = isTerminating(stored.object)
      ? stored
      : this.book.stamp(
          markedTerminating(stored.object, this.book.timestamp()),
          stored,
          '',
          false,
          dryRun,
          false,
        );
    const answer = this.book.render(marked);
    if (dryRun) return answer;
    this.namespaces.set(name, marked);
    this.namespaceController.marked(name);
    return answer;
  }

  /** The namespace controller's work on a Terminating namespace: its contents go, then it does. */
  private finishNamespace(name: string): void {
    const stored = this.namespaces.get(name);
    if (!stored || !isTerminating(stored.object)) return;
    for (const key of [...this.secrets.keys()])
      if (key.startsWith(`${name}/`)) this.secrets.delete(key);
    this.objects.purge({ namespace: name });
    this.namespaces.delete(name);
    this.book.bump();
  }

  hasNamespace(name: string): boolean {
    return this.namespaces.has(name);
  }

  // ---- secrets --------------------------------------------------------------------------------

  getSecret(namespace: string, name: string): Obj {
    const stored = this.secrets.get(`${namespace}/${name}`);
    if (!stored) throw notFound('secrets', name);
    return this.book.render(stored);
  }

  listSecrets(namespace: string | undefined, selector?: string | null): Obj {
    const matches = parseLabelSelector(selector);
    const items = [...this.secrets.entries()]
      .filter(([key]) => namespace === undefined || key.startsWith(`${namespace}/`))
      .filter(([, s]) => matches(labelsOf(s.object)))
      .map(([, s]) => this.book.render(s));
    return this.book.list('SecretList', items);
  }

  /**
   * `admissionPreview`: the object validating admission judges, before the name is checked against
   * storage, as the real server orders it (registry Store.Create: strategy validation, then
   * createValidation, i.e. admission, then the storage create that answers AlreadyExists).
   */
  createSecret(
    namespace: string,
    body: Obj,
    manager: string,
    dryRun = false,
    admissionPreview = false,
  ): Obj {
    this.requireNamespace(namespace);
    const secret = normaliseSecret(this.withNamespace(body, namespace));
    const name = metadataOf(secret).name as string;
    if (!admissionPreview && this.secrets.has(`${namespace}/${name}`))
      throw alreadyExists('secrets', name);
    const stored = this.book.stamp(secret, { object: {}, managers: [] }, manager, true, dryRun);
    if (!dryRun) this.secrets.set(`${namespace}/${name}`, stored);
    return this.book.render(stored);
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
    const stored = this.book.stamp(secret, previous, manager, false, dryRun);
    if (!dryRun) this.secrets.set(key, stored);
    return this.book.render(stored);
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
    const stored = this.book.patch(previous, 'secrets', name, type, patch, options, {
      base: { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace } },
      normalise: (object, before) => normaliseSecret(this.withNamespace(object, namespace), before),
    });
    if (!options.dryRun) this.secrets.set(key, stored);
    return this.book.render(stored);
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
    this.book.bump();
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name, kind: 'secrets', uid: meta.uid as string },
    };
  }

  // ---- bookkeeping ----------------------------------------------------------------------------

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
}

function labelsOf(object: Obj): Record<string, string> {
  const labels = metadataOf(object).labels;
  return isObject(labels) ? (labels as Record<string, string>) : {};
}
