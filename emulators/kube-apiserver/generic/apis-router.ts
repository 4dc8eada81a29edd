import { admitNamespaceLifecycle, admitWrite, type WriteRequest } from '../admission/gate';
import { printerTable, wantsTable } from '../crds/printer-table';
import { parseLabelSelector } from '../label-selector';
import { isObject } from '../merge-patch';
import { admissionName } from '../namespace-termination';
import { metadataOf, type Obj } from '../object-book';
import { reviewAccess, SELF_SUBJECT_ACCESS_REVIEW_TYPE } from '../rbac/access-review';
import type { RouteRequest } from '../route-request';
import { objectBody, PATCH_TYPES, patchBody } from '../request-bodies';
import {
  badRequest,
  forbidden,
  KubeError,
  methodNotAllowed,
  unsupportedMediaType,
} from '../status';
import type { KubeStore } from '../store';
import { labelsOf } from './object-meta';
import type { Part, Target } from './object-table';
import { apiVersionOf, typeKey } from './resource-type';
import { BUILT_IN_TYPES, isCustomResource, resolveType } from './type-registry';
import { serveWatch } from './watch-stream';

export type ApisRequest = RouteRequest;

const VERBS: Record<string, string> = {
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

/** Where `/apis/GROUP/VERSION/...` points: the type, namespace, name and subresource. */
function locate(store: KubeStore, parts: string[]) {
  const [, group = '', version = '', ...rest] = parts;
  const namespaced = rest[0] === 'namespaces' && rest.length >= 3;
  const [plural = '', name, subresource, extra] = namespaced ? rest.slice(2) : rest;
  const namespace = namespaced ? rest[1]! : '';
  const type = resolveType(store.objects, group, version, plural);
  const missing = () => {
    const error = badRequest(`the server could not find the requested resource`);
    return new KubeError({ ...error.status, code: 404, reason: 'NotFound', details: {} });
  };
  if (!type || extra !== undefined || (namespaced && !type.namespaced)) throw missing();
  if (!type.namespaced && name === undefined && namespace !== '') throw missing();
  if (subresource !== undefined && (subresource !== 'status' || !type.statusSubresource))
    throw missing();
  if (type.namespaced && name !== undefined && !namespaced) throw missing();
  return {
    type,
    version,
    namespace,
    name,
    part: (subresource === 'status' ? 'status' : 'main') as Part,
  };
}

/** `metadata.name=X` and `metadata.namespace=X` field selectors (what kubectl and informers send). */
function fieldSelector(text: string | null): (object: Obj) => boolean {
  if (!text) return () => true;
  const requirements = text.split(',').map((term) => {
    const match = /^(metadata\.name|metadata\.namespace)(==|=|!=)(.*)$/.exec(term.trim());
    if (!match)
      throw badRequest(
        `"${term}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
      );
    const [, field, op, value] = match as unknown as [string, string, string, string];
    return (object: Obj) => {
      const actual = metadataOf(object)[field === 'metadata.name' ? 'name' : 'namespace'] ?? '';
      return op === '!=' ? actual !== value : actual === value;
    };
  });
  return (object) => requirements.every((requirement) => requirement(object));
}

/**
 * Serves the generically stored kinds under `/apis`: CustomResourceDefinitions, admission
 * policies and bindings, and every kind a CRD registers (CRUD, `/status`, list with label and
 * field selectors, watch). Authorization, then admission, then the write.
 */
export async function routeApis(parts: string[], request: ApisRequest): Promise<void> {
  const { url, method, who, store, answer } = request;
  const { type, version, namespace, name, part } = locate(store, parts);
  const target: Target = { type, version, namespace };
  if (type === SELF_SUBJECT_ACCESS_REVIEW_TYPE) {
    if (method !== 'POST' || name !== undefined) throw methodNotAllowed(method);
    answer(
      201,
      reviewAccess(request.authorize, who, await objectBody(request.req), (group, resource) =>
        isCustomResource(store.objects, group, resource),
      ),
    );
    return;
  }
  const watching = method === 'GET' && ['true', '1'].includes(url.searchParams.get('watch') ?? '');
  const verb = method === 'GET' ? (watching ? 'watch' : name ? 'get' : 'list') : VERBS[method];
  if (!verb) throw methodNotAllowed(method);
  const resource = part === 'status' ? `${type.plural}/status` : type.plural;
  const decision = request.authorize(who, {
    verb,
    group: type.group,
    resource: type.plural,
    ...(part === 'status' ? { subresource: 'status' } : {}),
    ...(name ? { name } : {}),
    ...(namespace ? { namespace } : {}),
    // GKE's IAM knows every CRD's kinds as one resource, thirdPartyObjects (gke-iam.ts).
    customResource: !BUILT_IN_TYPES.includes(type),
  });
  if (!decision.allowed)
    throw forbidden(
      who.username,
      verb,
      resource,
      name,
      namespace || undefined,
      type.group,
      decision.iamPermission,
    );
  const dryRun = url.searchParams.get('dryRun') === 'All';
  const options = {
    manager: request.manager,
    dryRun,
    strict: url.searchParams.get('fieldValidation') === 'Strict',
    part,
  };
  const write = (
    operation: WriteRequest['operation'],
    objectName: string,
    object: Obj | null,
    old: Obj | null,
  ) => {
    const warnings = admitWrite(
      store,
      {
        operation,
        group: type.group,
        version,
        resource: type.plural,
        subresource: part === 'status' ? 'status' : '',
        kind: type.kind,
        name: objectName,
        namespace,
        username: who.username,
        groups: who.groups,
        dryRun,
      },
      object,
      old,
    );
    for (const warning of warnings)
      request.res.appendHeader('Warning', `299 - ${JSON.stringify(warning)}`);
  };

  /** NamespaceLifecycle for a create, before the object is computed (it runs ahead of validation). */
  const creating = (objectName: string) =>
    admitNamespaceLifecycle(store, {
      operation: 'CREATE',
      group: type.group,
      resource: type.plural,
      kind: type.kind,
      name: objectName,
      namespace,
    });

  if (name === undefined) {
    if (verb === 'watch' || verb === 'list') return serveCollection(request, target, verb);
    if (verb !== 'create') throw methodNotAllowed(method);
    const body = await objectBody(request.req);
    creating(admissionName(body));
    const preview = store.objects.create(target, body, { ...options, dryRun: true });
    write('CREATE', String(metadataOf(preview).name), preview, null);
    answer(201, dryRun ? preview : store.objects.create(target, body, options));
    return;
  }
  switch (verb) {
    case 'get': {
      const object = store.objects.get(target, name);
      answer(
        200,
        asTable(request, target, [object], String(metadataOf(object).resourceVersion)) ?? object,
      );
      return;
    }
    case 'update': {
      const body = await objectBody(request.req);
      const old = store.objects.get(target, name);
      const preview = store.objects.replace(target, name, body, { ...options, dryRun: true });
      write('UPDATE', name, preview, old);
      answer(200, dryRun ? preview : store.objects.replace(target, name, body, options));
      return;
    }
    case 'patch': {
      const contentType = (request.req.headers['content-type'] ?? '').split(';')[0]!.trim();
      const patchType = PATCH_TYPES[contentType];
      // Custom resources have no Go struct to derive a strategic merge from: 415, as on a real cluster.
      if (!patchType || patchType === 'strategic')
        throw unsupportedMediaType(request.req.headers['content-type'] ?? 'none');
      if (patchType === 'apply' && !url.searchParams.get('fieldManager'))
        throw badRequest('PATCH, application/apply-patch+yaml requires fieldManager to be set');
      const patch = await patchBody(request.req, patchType);
      const patchOptions = { ...options, force: url.searchParams.get('force') === 'true' };
      const old = store.objects.find(target, name) ?? null;
      // Only an apply creates what is missing; any other patch of a missing object is a 404.
      if (!old && patchType === 'apply') creating(name);
      const preview = store.objects.patch(target, name, patchType, patch, {
        ...patchOptions,
        dryRun: true,
      });
      write(old ? 'UPDATE' : 'CREATE', name, preview.object, old);
      const result = dryRun
        ? preview
        : store.objects.patch(target, name, patchType, patch, patchOptions);
      answer(result.created ? 201 : 200, result.object);
      return;
    }
    case 'delete': {
      if (part === 'status') throw methodNotAllowed(method);
      const body = await objectBody(request.req, true);
      const pre = isObject(body.preconditions) ? body.preconditions : {};
      const old = store.objects.get(target, name);
      write('DELETE', name, null, old);
      const preconditions = {
        ...(typeof pre.resourceVersion === 'string'
          ? { resourceVersion: pre.resourceVersion }
          : {}),
        ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}),
      };
      const deleted = store.objects.delete(target, name, preconditions, dryRun);
      if (!dryRun && type.group === 'apiextensions.k8s.io') purgeInstances(store, deleted);
      answer(200, deleted);
      return;
    }
    default:
      throw methodNotAllowed(method);
  }
}

/** A CRD's deletion removes its custom resources (the real server does so before it goes). */
function purgeInstances(store: KubeStore, crd: Obj): void {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const names = isObject(spec.names) ? spec.names : {};
  if (typeof spec.group === 'string' && typeof names.plural === 'string')
    store.objects.purge({ type: { group: spec.group, plural: names.plural } });
}

function serveCollection(request: ApisRequest, target: Target, verb: 'list' | 'watch'): void {
  const { url, store } = request;
  const labels = parseLabelSelector(url.searchParams.get('labelSelector'));
  const fields = fieldSelector(url.searchParams.get('fieldSelector'));
  const accepts = (object: Obj) => labels(labelsOf(object)) && fields(object);
  if (verb === 'list') {
    const list = store.objects.list(target);
    const items = (list.items as Obj[]).filter((item) => isObject(item) && accepts(item));
    const resourceVersion = String(metadataOf(list).resourceVersion);
    request.answer(200, asTable(request, target, items, resourceVersion) ?? { ...list, items });
    return;
  }
  const key = typeKey(target.type);
  request.log(200);
  serveWatch(request.req, request.res, store.objects.watches, {
    accepts: (event) =>
      event.resource === key &&
      (target.namespace === '' || event.namespace === target.namespace) &&
      accepts(event.object),
    initial: () => (store.objects.list(target).items as Obj[]).filter(accepts),
    resourceVersion: url.searchParams.get('resourceVersion') ?? '',
    timeoutSeconds: Number(url.searchParams.get('timeoutSeconds') ?? '1800') || 1800,
    render: (object) => ({ ...object, apiVersion: apiVersionOf(target.type, target.version) }),
  });
}

/** The Table kubectl asks for, for kinds with printer columns; undefined otherwise. */
function asTable(
  request: ApisRequest,
  target: Target,
  items: Obj[],
  resourceVersion: string,
): Obj | undefined {
  const columns = target.type.printerColumns;
  if (!columns || !wantsTable(request.req.headers.accept)) return undefined;
  return printerTable(columns(target.version), items, resourceVersion);
}
