import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultInjector } from '../common/fault-injector';
import { applyHttpFault } from '../common/http-faults';
import { BodyError, readJson, sendJson } from '../common/http';
import type { RequestLog } from '../common/request-log';
import { Problem } from './problem';
import type { HyperFleetStore } from './store';

export const BASE_PATH = '/api/hyperfleet/v1';

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
  readonly exchanges?: RecordedExchange[];
}

const PROBLEM = 'application/problem+json';

function pagination(url: URL): { page: number; size: number } {
  const page = Number(url.searchParams.get('page') ?? 1);
  const size = Number(url.searchParams.get('size') ?? 20);
  if (!Number.isInteger(page) || page < 1 || !Number.isInteger(size) || size < 1) {
    throw new Problem(400, 'page and size must be integers >= 1', [
      { field: 'page', constraint: 'min', message: 'must be >= 1' },
    ]);
  }
  return { page, size };
}

/** Serves the HyperFleet API under /api/hyperfleet/v1 with auth, faults and the request log. */
export async function serveApi(
  req: IncomingMessage,
  res: ServerResponse,
  context: RoutesContext,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://emulator');
  const method = req.method ?? 'GET';
  let requestBody: unknown;
  let identity: string | undefined;
  const answer = (status: number, body?: unknown, type = 'application/json') => {
    context.requests.add({
      method,
      target: url.pathname,
      outcome: status,
      ...(identity ? { identity } : {}),
    });
    context.exchanges?.push({
      method,
      path: url.pathname,
      status,
      ...(requestBody !== undefined ? { requestBody } : {}),
      ...(body !== undefined ? { responseBody: body } : {}),
    });
    if (status === 204) {
      res.writeHead(204);
      res.end();
    } else sendJson(res, status, body, type);
  };
  try {
    const fault = await applyHttpFault(context.faults, `${method} ${url.pathname}`, res, (f) => {
      const problem = new Problem(f.status, f.message ?? `injected fault: HTTP ${f.status}`);
      sendJson(res, problem.status, problem.body(url.pathname), PROBLEM);
    });
    if (fault)
      throw new Problem(fault.status, fault.message ?? `injected fault: HTTP ${fault.status}`);

    if (Object.keys(context.tokens).length > 0) {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      identity = token ? context.tokens[token] : undefined;
      if (!identity) throw new Problem(401, 'Account authentication could not be verified');
    }
    const by = identity ?? 'anonymous@hyperfleet.local';
    if (!url.pathname.startsWith(`${BASE_PATH}/clusters`))
      throw new Problem(404, `No route for ${url.pathname}`);
    const [id, sub, ...rest] = url.pathname
      .slice(`${BASE_PATH}/clusters`.length)
      .split('/')
      .filter(Boolean);
    if (rest.length > 0) throw new Problem(404, `No route for ${url.pathname}`);
    const store = context.store;
    const body = async () => {
      requestBody = await readJson(req);
      return requestBody;
    };

    if (!id) {
      if (method === 'GET') {
        const { page, size } = pagination(url);
        return answer(
          200,
          store.listClusters({
            page,
            size,
            search: url.searchParams.get('search'),
            order: url.searchParams.get('order'),
          }),
        );
      }
      if (method === 'POST') return answer(201, store.createCluster(await body(), by));
    } else if (!sub) {
      if (method === 'GET') return answer(200, store.getCluster(id));
      if (method === 'PATCH') return answer(200, store.patchCluster(id, await body(), by));
      if (method === 'DELETE') return answer(202, store.deleteCluster(id, by));
    } else if (sub === 'statuses') {
      if (method === 'GET') {
        const { page, size } = pagination(url);
        return answer(200, store.listStatuses(id, page, size));
      }
      if (method === 'PUT') {
        const result = store.putStatus(id, await body());
        if (!result.stored) {
          res.setHeader('x-hyperfleet-discard-reason', result.cause);
          return answer(204);
        }
        const { observed_time: _observed, ...status } = result.status;
        return answer(201, status);
      }
      // POST was removed from the API: it answers 405, as the real service does.
      if (method === 'POST')
        throw new Problem(405, 'POST on statuses was removed; use PUT /clusters/{id}/statuses');
    } else if (sub === 'force-delete' && method === 'POST') {
      const request = (await body()) as { reason?: unknown } | undefined;
      store.forceDelete(id, request?.reason);
      return answer(204);
    }
    throw new Problem(405, `${method} is not allowed on ${url.pathname}`);
  } catch (error) {
    const problem =
      error instanceof Problem
        ? error
        : error instanceof BodyError
          ? new Problem(error.status === 413 ? 400 : 400, error.message)
          : new Problem(500, error instanceof Error ? error.message : String(error));
    answer(problem.status, problem.body(url.pathname), PROBLEM);
  }
}
