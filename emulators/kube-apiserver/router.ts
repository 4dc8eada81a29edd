import type { IncomingMessage, ServerResponse } from 'node:http';
import YAML from 'yaml';
import { handleAdminRequest, type AdminRoute } from '../common/admin-routes';
import type { FaultInjector } from '../common/fault-injector';
import { applyHttpFault } from '../common/http-faults';
import { BodyError, readBody, sendJson } from '../common/http';
import type { RequestLog } from '../common/request-log';
import { discoveryDocument } from './discovery';
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

    const discovery = discoveryDocument(url.pathname, context.serverAddress);
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

    if (first === 'secrets' && parts.length === 3) {
      collection('secrets', undefined, undefined);
      if (method !== 'GET') throw methodNotAllowed(method);
      answer(200, context.store.listSecrets(undefined, url.searchParams.get('labelSelector')));
      return;
    }
    if (first !== 'namespaces' || extra !== undefined) throw notServed(url.pathname);
    if (sub === undefined) {
      const verb = collection('namespaces', undefined, namespace);
      if (!namespace) {
        if (verb === 'list')
          answer(200, context.store.listNamespaces(url.searchParams.get('labelSelector')));
        else if (verb === 'create')
          answer(201, context.store.createNamespace(await objectBody(req), manager));
        else throw methodNotAllowed(method);
      } else if (verb === 'get') answer(200, context.store.getNamespace(namespace));
      else if (verb === 'delete') answer(200, context.store.deleteNamespace(namespace));
      else throw methodNotAllowed(method);
      return;
    }
    if (sub !== 'secrets' || !namespace) throw notServed(url.pathname);
    const verb = collection('secrets', namespace, name);
    if (!name) {
      if (verb === 'list')
        answer(200, context.store.listSecrets(namespace, url.searchParams.get('labelSelector')));
      else if (verb === 'create')
        answer(201, context.store.createSecret(namespace, await objectBody(req), manager, dryRun));
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
          context.store.replaceSecret(namespace, name, await objectBody(req), manager, dryRun),
        );
        return;
      case 'patch': {
        const type = PATCH_TYPES[(req.headers['content-type'] ?? '').split(';')[0]!.trim()];
        if (!type) throw unsupportedMediaType(req.headers['content-type'] ?? 'none');
        const force = url.searchParams.get('force') === 'true';
        if (type === 'apply' && !url.searchParams.get('fieldManager')) {
          throw badRequest('PATCH, application/apply-patch+yaml requires fieldManager to be set');
        }
        const existed = safeExists(context.store, namespace, name);
        const patched = context.store.patchSecret(
          namespace,
          name,
          type,
          await patchBody(req, type),
          { manager, force, dryRun },
        );
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
