import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Tracer } from '@opentelemetry/api';
import type { FaultInjector } from '../common/fault-injector';
import { applyHttpFault, type HttpFailure } from '../common/http-faults';
import { BodyError, JsonText, readJson, sendJson } from '../common/http';
import type { RequestLog } from '../common/request-log';
import { authenticate, matchRoute, resolveTenant, type TenancyRules } from './access-rules';
import { parseListParams } from './list-params';
import { malformed, Problem } from './problem';
import { startServerSpan } from './server-span';
import { renderStatus, type HyperFleetStore } from './store';

/** One exchange, kept only when the emulator records bodies (contract tests). */
export interface RecordedExchange {
  method: string;
  path: string;
  status: number;
  requestBody?: unknown;
  responseBody?: unknown;
}

export interface RoutesContext {
  readonly store: HyperFleetStore;
  readonly faults: FaultInjector;
  readonly requests: RequestLog;
  /** Static bearer tokens -> identity; authentication is off when empty. */
  readonly tokens: Readonly<Record<string, string>>;
  /** Tenancy header rules; off when undefined. */
  readonly tenancy?: TenancyRules;
  readonly exchanges?: RecordedExchange[];
  /** Records a SERVER span per request (default: the global tracer, a no-op unless registered). */
  readonly tracer?: Tracer;
}

const PROBLEM = 'application/problem+json';

/** The API's default cluster order when `order` is absent or empty (list_params.go defaultOrder). */
const DEFAULT_ORDER = 'created_time desc';

/** Serves the HyperFleet API under /api/hyperfleet/v1 with its access rules, faults and the request log. */
export async function serveApi(
  req: IncomingMessage,
  res: ServerResponse,
  context: RoutesContext,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://emulator');
  const method = req.method ?? 'GET';
  const span = startServerSpan(context.tracer, req, res, url.pathname);
  let requestBody: unknown;
  let identity: string | undefined;
  // Which component called (several share the stack's token); faults can be aimed at one.
  const client = req.headers['user-agent'] ?? '';
  const answer = (status: number, body?: unknown, type = 'application/json') => {
    context.requests.add({
      method,
      target: url.pathname,
      outcome: status,
      ...(identity ? { identity } : {}),
      ...(client ? { client } : {}),
    });
    context.exchanges?.push({
      method,
      path: url.pathname,
      status,
      ...(requestBody !== undefined ? { requestBody } : {}),
      ...(body !== undefined
        ? { responseBody: body instanceof JsonText ? body.value() : body }
        : {}),
    });
    if (status === 204) {
      res.writeHead(204);
      res.end();
    } else sendJson(res, status, body, type);
  };
  try {
    const injected = (f: HttpFailure) =>
      new Problem(
        f.status,
        f.message ?? `injected fault: HTTP ${f.status}`,
        undefined,
        f.code
          ? { type: 'injected-fault', title: `Injected fault ${f.code}`, code: f.code }
          : undefined,
      );
    const fault = await applyHttpFault(
      context.faults,
      `${method} ${url.pathname}`,
      res,
      (f) => {
        const problem = injected(f);
        sendJson(res, problem.status, problem.body(url.pathname, span.traceId), PROBLEM);
      },
      client,
    );
    if (fault) throw injected(fault);

    // The API's order (access-rules.ts): router (404 NTF-000, 405), JWT (401), tenancy (403).
    const route = matchRoute(method, url.pathname);
    span.route(route.name, route.clusterId);
    identity = authenticate(req.headers, context.tokens);
    const tenant = resolveTenant(req.headers, method, route, context.tenancy);
    const by =
      identity ??
      (tenant && !tenant.system ? `${tenant.org}@hyperfleet.local` : 'anonymous@hyperfleet.local');
    const store = context.store;
    const id = route.clusterId ?? '';
    const body = async () => {
      requestBody = await readJson(req);
      return requestBody;
    };

    if (route.name === 'clusters') {
      if (method === 'GET') {
        const { page, size } = parseListParams(url.searchParams);
        return answer(
          200,
          new JsonText(
            store.listClustersJson({
              page,
              size,
              search: url.searchParams.get('search'),
              order: url.searchParams.get('order')?.trim() || DEFAULT_ORDER,
            }),
          ),
        );
      }
      return answer(201, store.createCluster(await body(), by));
    }
    if (route.name === 'cluster') {
      if (method === 'GET') return answer(200, new JsonText(store.getClusterJson(id)));
      if (method === 'PATCH') return answer(200, store.patchCluster(id, await body(), by));
      return answer(202, store.deleteCluster(id, by));
    }
    if (route.name === 'statuses') {
      if (method === 'GET') {
        // Parameters first: a bad size on a missing cluster is 400 (ResourceStatusHandler.List).
        const { page, size } = parseListParams(url.searchParams);
        return answer(200, store.listStatuses(id, page, size));
      }
      const result = store.putStatus(id, await body());
      if (result.stored) return answer(201, renderStatus(result.status));
      // An equal observed_time: not stored, yet 201 with the row already stored (dao Upsert).
      if (result.unchanged) return answer(201, renderStatus(result.unchanged));
      // A discard is a bare 204, as the API answers: no header or body says why.
      return answer(204);
    }
    const request = (await body()) as { reason?: unknown } | undefined;
    store.forceDelete(id, request?.reason);
    return answer(204);
  } catch (error) {
    const problem =
      error instanceof Problem
        ? error
        : error instanceof BodyError
          ? malformed(`Invalid request format: ${error.message}`)
          : new Problem(500, error instanceof Error ? error.message : String(error));
    answer(problem.status, problem.body(url.pathname, span.traceId), PROBLEM);
  }
}
