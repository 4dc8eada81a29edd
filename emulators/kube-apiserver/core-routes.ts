import { admitNamespaceLifecycle, admitWrite, type WriteRequest } from './admission/gate';
import { enforceFieldValidation } from './field-validation';
import { isObject } from './merge-patch';
import { admissionName } from './namespace-termination';
import type { Obj } from './object-book';
import { objectBody, PATCH_TYPES, patchBody } from './request-bodies';
import type { RouteRequest } from './route-request';
import { badRequest, forbidden, KubeError, methodNotAllowed, unsupportedMediaType } from './status';
import type { KubeStore } from './store';

const VERBS: Record<string, string> = {
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

/**
 * core/v1 namespaces and secrets: authorization per verb, then (for writes) the object computed
 * as a dry run, validating admission, and the write.
 */
export async function routeCore(parts: string[], request: RouteRequest): Promise<void> {
  const { req, res, url, method, who, manager, answer } = request;
  const context = { store: request.store };
  const [, , first, namespace, sub, name, extra] = parts;
  const collection = (resource: string, ns: string | undefined, item: string | undefined) => {
    const verb = method === 'GET' ? (item ? 'get' : 'list') : VERBS[method];
    if (!verb) throw methodNotAllowed(method);
    const decision = request.authorize(who, {
      verb,
      group: '',
      resource,
      ...(item ? { name: item } : {}),
      ...(ns ? { namespace: ns } : {}),
    });
    if (!decision.allowed)
      throw forbidden(who.username, verb, resource, item, ns, '', decision.iamPermission);
    return verb;
  };
  const dryRun = url.searchParams.get('dryRun') === 'All';
  /** Validating admission of a core/v1 write (after authorization, before the write). */
  const admit = (
    operation: WriteRequest['operation'],
    kind: 'Secret' | 'Namespace',
    name: string,
    object: Obj | null,
    oldObject: Obj | null,
  ) => {
    const warnings = admitWrite(
      context.store,
      {
        operation,
        group: '',
        version: 'v1',
        resource: kind === 'Secret' ? 'secrets' : 'namespaces',
        subresource: '',
        kind,
        name,
        namespace: kind === 'Secret' ? (namespace ?? '') : '',
        username: who.username,
        groups: who.groups,
        dryRun,
      },
      object,
      oldObject,
    );
    for (const warning of warnings) res.appendHeader('Warning', `299 - ${JSON.stringify(warning)}`);
  };
  /** NamespaceLifecycle, before the object is computed (it runs ahead of validation). */
  const lifecycle = (
    operation: WriteRequest['operation'],
    kind: 'Secret' | 'Namespace',
    name: string,
  ) =>
    admitNamespaceLifecycle(context.store, {
      operation,
      group: '',
      resource: kind === 'Secret' ? 'secrets' : 'namespaces',
      kind,
      name,
      namespace: kind === 'Secret' ? (namespace ?? '') : '',
    });
  const fieldValidation = url.searchParams.get('fieldValidation');
  /** A create or update body, checked against the kind's fields when the caller asks for Strict. */
  const bodyOf = async (kind: string) => {
    const body = await objectBody(req);
    enforceFieldValidation(fieldValidation, kind, body);
    return body;
  };
  /** A PATCH body with its type and `force`, checked like a body. */
  const patchOf = async (kind: string) => {
    const type = PATCH_TYPES[(req.headers['content-type'] ?? '').split(';')[0]!.trim()];
    if (!type) throw unsupportedMediaType(req.headers['content-type'] ?? 'none');
    if (type === 'apply' && !url.searchParams.get('fieldManager'))
      throw badRequest('PATCH, application/apply-patch+yaml requires fieldManager to be set');
    const patch = await patchBody(req, type);
    enforceFieldValidation(fieldValidation, kind, patch);
    const force = url.searchParams.get('force') === 'true';
    return { type, patch, options: { manager, force, dryRun } };
  };

  if (first === 'secrets' && parts.length === 3) {
    collection('secrets', undefined, undefined);
    if (method !== 'GET') throw methodNotAllowed(method);
    answer(200, context.store.listSecrets(undefined, url.searchParams.get('labelSelector')));
    return;
  }
  if (first !== 'namespaces' || extra !== undefined) throw notServed(url.pathname);
  if (sub === undefined) {
    // Authorization comes first (collection), so a caller without rights learns nothing, not
    // even whether the namespace exists.
    const verb = collection('namespaces', undefined, namespace);
    if (!namespace) {
      if (verb === 'list')
        answer(200, context.store.listNamespaces(url.searchParams.get('labelSelector')));
      else if (verb === 'create') {
        const body = await bodyOf('Namespace');
        const preview = context.store.createNamespace(body, manager, true);
        admit('CREATE', 'Namespace', nameOf(preview), preview, null);
        answer(201, dryRun ? preview : context.store.createNamespace(body, manager));
      } else throw methodNotAllowed(method);
      return;
    }
    switch (verb) {
      case 'get':
        answer(200, context.store.getNamespace(namespace));
        return;
      case 'delete':
        lifecycle('DELETE', 'Namespace', namespace);
        admit('DELETE', 'Namespace', namespace, null, context.store.getNamespace(namespace));
        answer(200, context.store.deleteNamespace(namespace, dryRun));
        return;
      case 'update': {
        const body = await bodyOf('Namespace');
        const old = context.store.getNamespace(namespace);
        const preview = context.store.updateNamespace(namespace, body, manager, true);
        admit('UPDATE', 'Namespace', namespace, preview, old);
        answer(200, dryRun ? preview : context.store.updateNamespace(namespace, body, manager));
        return;
      }
      case 'patch': {
        const { type, patch, options } = await patchOf('Namespace');
        const old = context.store.hasNamespace(namespace)
          ? context.store.getNamespace(namespace)
          : null;
        const preview = context.store.patchNamespace(namespace, type, patch, {
          ...options,
          dryRun: true,
        });
        admit(old ? 'UPDATE' : 'CREATE', 'Namespace', namespace, preview, old);
        const patched = dryRun
          ? preview
          : context.store.patchNamespace(namespace, type, patch, options);
        answer(type === 'apply' && !old ? 201 : 200, patched);
        return;
      }
      default:
        throw methodNotAllowed(method);
    }
  }
  if (sub !== 'secrets' || !namespace) throw notServed(url.pathname);
  const verb = collection('secrets', namespace, name);
  if (!name) {
    if (verb === 'list')
      answer(200, context.store.listSecrets(namespace, url.searchParams.get('labelSelector')));
    else if (verb === 'create') {
      const body = await bodyOf('Secret');
      lifecycle('CREATE', 'Secret', admissionName(body));
      const preview = context.store.createSecret(namespace, body, manager, true, true);
      admit('CREATE', 'Secret', nameOf(preview), preview, null);
      answer(201, context.store.createSecret(namespace, body, manager, dryRun));
    } else throw methodNotAllowed(method);
    return;
  }
  switch (verb) {
    case 'get':
      answer(200, context.store.getSecret(namespace, name));
      return;
    case 'update': {
      const body = await bodyOf('Secret');
      const old = context.store.getSecret(namespace, name);
      const preview = context.store.replaceSecret(namespace, name, body, manager, true);
      admit('UPDATE', 'Secret', name, preview, old);
      answer(200, dryRun ? preview : context.store.replaceSecret(namespace, name, body, manager));
      return;
    }
    case 'patch': {
      const { type, patch, options } = await patchOf('Secret');
      const old = findSecret(context.store, namespace, name);
      // Only an apply creates what is missing; any other patch of a missing Secret is a 404.
      if (!old && type === 'apply') lifecycle('CREATE', 'Secret', name);
      const preview = context.store.patchSecret(namespace, name, type, patch, {
        ...options,
        dryRun: true,
      });
      admit(old ? 'UPDATE' : 'CREATE', 'Secret', name, preview, old);
      const patched = dryRun
        ? preview
        : context.store.patchSecret(namespace, name, type, patch, options);
      answer(type === 'apply' && !old ? 201 : 200, patched);
      return;
    }
    case 'delete': {
      const options = await objectBody(req, true);
      admit('DELETE', 'Secret', name, null, context.store.getSecret(namespace, name));
      const pre = isObject(options.preconditions) ? options.preconditions : {};
      answer(
        200,
        context.store.deleteSecret(namespace, name, {
          ...(typeof pre.resourceVersion === 'string'
            ? { resourceVersion: pre.resourceVersion }
            : {}),
          ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}),
        }),
      );
      return;
    }
    default:
      throw methodNotAllowed(method);
  }
}

/** 404 for a path this emulator does not serve, as the API server words it. */
export function notServed(path: string): KubeError {
  const error = badRequest(`the server could not find the requested resource (${path})`);
  return new KubeError({ ...error.status, code: 404, reason: 'NotFound' });
}

/** The Secret as stored, or null (admission's oldObject; an apply patch may create it). */
function findSecret(store: KubeStore, namespace: string, name: string): Obj | null {
  try {
    return store.getSecret(namespace, name);
  } catch {
    return null;
  }
}

const nameOf = (object: Obj): string =>
  isObject(object.metadata) ? String(object.metadata.name ?? '') : '';
