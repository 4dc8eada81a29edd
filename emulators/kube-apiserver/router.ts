import type { IncomingMessage, ServerResponse } from 'node:http';
import YAML from 'yaml';
import { handleAdminRequest, type AdminRoute } from '../common/admin-routes';
import type { FaultInjector } from '../common/fault-injector';
import { applyHttpFault } from '../common/http-faults';
import { BodyError, readBody, sendJson } from '../common/http';
import type { RequestLog } from '../common/request-log';
import { discoveryDocument } from './discovery';
import { enforceFieldValidation } from './field-validation';
import { openApiDocument } from './openapi';
import { isObject, type Json } from './merge-patch';
import { isAllowed, type RbacTable } from './rbac';
import type { KubeStore, PatchType } from './store';
import {
  badRequest,
  forbidden,
  injected,
  internalError,
  KubeError,
  methodNotAllowed,
  unauthorized,
  unsupportedMediaType,
} from './status';

export interface RouterContext {
  readonly store: KubeStore;
  readonly rbac: RbacTable;
  readonly faults: FaultInjector;
  readonly requests: RequestLog;
  readonly serverAddress: string;
  readonly admin?: AdminRoute;
}

const PATCH_TYPES: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
  'application/apply-patch+json': 'apply',
};
const VERBS: Record<string, string> = {
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};
const PUBLIC_PATHS = new Set(['/version', '/healthz', '/readyz', '/livez']);

/** Routes one request: admin API, faults, authentication, authorization, then core/v1. */
export async function route(
  req: IncomingMessage,
  res: ServerResponse,
  context: RouterContext,
): Promise<void> {
  if (
    await handleAdminRequest(req, res, {
      faults: context.faults,
      requests: context.requests,
      ...(context.admin ? { extra: context.admin } : {}),
    })
  )
    return;
  const url = new URL(req.url ?? '/', 'https://emulator');
  const method = req.method ?? 'GET';
  let identity: string | undefined;
  const answer = (status: number, body: unknown) => {
    context.requests.add({
      method,
      target: url.pathname,
      outcome: status,
      ...(identity ? { identity } : {}),
    });
    sendJson(res, status, body);
  };
  try {
    const fault = await applyHttpFault(context.faults, `${method} ${url.pathname}`, res, (f) => {
      const error = injected(f.status, f.message);
      sendJson(res, error.status.code, error.status);
    });
    if (fault) throw injected(fault.status, fault.message);

    if (PUBLIC_PATHS.has(url.pathname)) {
      answer(
        200,
        url.pathname === '/version' ? discoveryDocument('/version', context.serverAddress) : 'ok',
      );
      return;
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const who = token ? context.rbac[token] : undefined;
    if (!who) throw unauthorized();
    identity = who.user;

    const discovery =
      discoveryDocument(url.pathname, context.serverAddress) ?? openApiDocument(url.pathname);
    if (discovery !== undefined) {
      answer(200, discovery);
      return;
    }
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] !== 'api' || parts[1] !== 'v1') throw notServed(url.pathname);
    const [, , first, namespace, sub, name, extra] = parts;
    const collection = (resource: string, ns: string | undefined, item: string | undefined) => {
      const verb = method === 'GET' ? (item ? 'get' : 'list') : VERBS[method];
      if (!verb) throw methodNotAllowed(method);
      if (!isAllowed(who, verb, resource, ns)) throw forbidden(who.user, verb, resource, item, ns);
      return verb;
    };
    const manager =
      url.searchParams.get('fieldManager') ??
      (req.headers['user-agent'] ?? 'unknown').split('/')[0] ??
      'unknown';
    const dryRun = url.searchParams.get('dryRun') === 'All';
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
        else if (verb === 'create')
          answer(201, context.store.createNamespace(await bodyOf('Namespace'), manager, dryRun));
        else throw methodNotAllowed(method);
        return;
      }
      switch (verb) {
        case 'get':
          answer(200, context.store.getNamespace(namespace));
          return;
        case 'delete':
          answer(200, context.store.deleteNamespace(namespace));
          return;
        case 'update':
          answer(
            200,
            context.store.updateNamespace(namespace, await bodyOf('Namespace'), manager, dryRun),
          );
          return;
        case 'patch': {
          const { type, patch, options } = await patchOf('Namespace');
          const existed = context.store.hasNamespace(namespace);
          const patched = context.store.patchNamespace(namespace, type, patch, options);
          answer(type === 'apply' && !existed ? 201 : 200, patched);
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
      else if (verb === 'create')
        answer(201, context.store.createSecret(namespace, await bodyOf('Secret'), manager, dryRun));
      else throw methodNotAllowed(method);
      return;
    }
    switch (verb) {
      case 'get':
        answer(200, context.store.getSecret(namespace, name));
        return;
      case 'update':
        answer(
          200,
          context.store.replaceSecret(namespace, name, await bodyOf('Secret'), manager, dryRun),
        );
        return;
      case 'patch': {
        const { type, patch, options } = await patchOf('Secret');
        const existed = safeExists(context.store, namespace, name);
        const patched = context.store.patchSecret(namespace, name, type, patch, options);
        answer(type === 'apply' && !existed ? 201 : 200, patched);
        return;
      }
      case 'delete': {
        const options = await objectBody(req, true);
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
  } catch (error) {
    const kubeError =
      error instanceof KubeError
        ? error
        : error instanceof BodyError
          ? badRequest(error.message)
          : internalError(error instanceof Error ? error.message : String(error));
    answer(kubeError.status.code, kubeError.status);
  }
}

function notServed(path: string): KubeError {
  const error = badRequest(`the server could not find the requested resource (${path})`);
  return new KubeError({ ...error.status, code: 404, reason: 'NotFound' });
}

function safeExists(store: KubeStore, namespace: string, name: string): boolean {
  try {
    store.getSecret(namespace, name);
    return true;
  } catch {
    return false;
  }
}

async function objectBody(
  req: IncomingMessage,
  optional = false,
): Promise<{ [key: string]: Json }> {
  const text = await readBody(req, 3 * 1024 * 1024);
  if (text.trim() === '') {
    if (optional) return {};
    throw badRequest('request body is required');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('the body of the request is not valid JSON');
  }
  if (!isObject(parsed as Json)) throw badRequest('the body of the request must be a JSON object');
  return parsed as { [key: string]: Json };
}

async function patchBody(req: IncomingMessage, type: PatchType): Promise<Json> {
  const text = await readBody(req, 3 * 1024 * 1024);
  try {
    return (type === 'apply' ? YAML.parse(text) : JSON.parse(text)) as Json;
  } catch {
    throw badRequest(`the patch body is not valid ${type === 'apply' ? 'YAML' : 'JSON'}`);
  }
}
