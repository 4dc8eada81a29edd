import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleAdminRequest, type AdminRoute } from '../common/admin-routes';
import type { FaultInjector } from '../common/fault-injector';
import { applyHttpFault } from '../common/http-faults';
import { BodyError, sendJson } from '../common/http';
import type { RequestLog } from '../common/request-log';
import { discoveryDocument } from './discovery';
import { openApiDocument } from './openapi';
import { routeApis } from './generic/apis-router';
import { notServed, routeCore } from './core-routes';
import type { Authenticator } from './authentication';
import type { Authorizer } from './authorizer';
import type { GkeIam } from './gke-iam';
import { impersonated } from './impersonation';
import type { KubeStore } from './store';
import { badRequest, injected, internalError, KubeError, unauthorized } from './status';

export interface RouterContext {
  readonly store: KubeStore;
  readonly authenticator: Authenticator;
  readonly authorize: Authorizer;
  /** A GKE cluster's IAM layer: Google identities need container.clusters.get to get in. */
  readonly iam?: GkeIam;
  readonly faults: FaultInjector;
  readonly requests: RequestLog;
  readonly serverAddress: string;
  readonly admin?: AdminRoute;
}

const PUBLIC_PATHS = new Set(['/version', '/healthz', '/readyz', '/livez']);

/**
 * Routes one request: admin API, faults, authentication, authorization, then core/v1 or `/apis`
 * (CRDs, admission policies, custom resources). Writes pass validating admission before they
 * are stored.
 */
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
  const dryRun = url.searchParams.get('dryRun') === 'All';
  let identity: string | undefined;
  const answer = (status: number, body: unknown) => {
    const name = method === 'POST' ? createdName(body) : undefined;
    context.requests.add({
      method,
      target: url.pathname,
      outcome: status,
      ...(identity ? { identity } : {}),
      ...(dryRun ? { dryRun } : {}),
      ...(name ? { name } : {}),
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
    const authenticated = await context.authenticator.authenticate(token);
    if (!authenticated) throw unauthorized();
    identity = authenticated.username;
    // GKE: a Google identity without container.clusters.get is refused here, before RBAC.
    context.iam?.admit(authenticated);
    // `kubectl --as` (and `auth can-i --as`): the authenticated user must be allowed to impersonate.
    const who = impersonated(req, authenticated, context.authorize);
    identity = who.username;

    const discovery =
      discoveryDocument(url.pathname, context.serverAddress, context.store.objects) ??
      openApiDocument(url.pathname, context.store.objects);
    if (discovery !== undefined) {
      answer(200, discovery);
      return;
    }
    const parts = url.pathname.split('/').filter(Boolean);
    const manager =
      url.searchParams.get('fieldManager') ??
      (req.headers['user-agent'] ?? 'unknown').split('/')[0] ??
      'unknown';
    const log = (status: number) =>
      context.requests.add({
        method,
        target: url.pathname,
        outcome: status,
        identity: who.username,
      });
    const request = {
      req,
      res,
      url,
      method,
      who,
      store: context.store,
      authorize: context.authorize,
      manager,
      answer,
      log,
    };
    if (parts[0] === 'apis' && parts.length >= 4) {
      await routeApis(parts, request);
      return;
    }
    if (parts[0] !== 'api' || parts[1] !== 'v1') throw notServed(url.pathname);
    await routeCore(parts, request);
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

/** The name a create's answer carries: the object's, or a refusal Status's `details.name`. */
function createdName(body: unknown): string | undefined {
  const object = body as
    { metadata?: { name?: unknown }; details?: { name?: unknown } } | null | undefined;
  const name = object?.metadata?.name ?? object?.details?.name;
  return typeof name === 'string' ? name : undefined;
}
