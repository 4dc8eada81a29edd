import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';
import { faultRuleSchema, type FaultInjector } from './fault-injector';
import { readJson, sendJson } from './http';
import type { RequestLog } from './request-log';

/** Path prefix of the test-control API every emulator serves. */
export const ADMIN_PREFIX = '/_emulator';

/** An extra admin route of one emulator (e.g. seeding), under ADMIN_PREFIX. */
export type AdminRoute = (
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
) => Promise<boolean> | boolean;

/**
 * Serves the control API shared by all emulators, so tests in other processes can inject faults
 * and count calls:
 *   GET /_emulator/health, GET|DELETE /_emulator/requests, GET|POST|DELETE /_emulator/faults,
 *   POST /_emulator/faults/release
 * (GET /faults answers the waiting rules, the faults taken, each with its caller, and how many
 * requests a `hold` rule holds; POST /faults/release lets them go on).
 * A fault rule with `"after": true` performs the request, then answers with its `status`.
 * Returns false when the path is not an admin path.
 */
export async function handleAdminRequest(
  req: IncomingMessage,
  res: ServerResponse,
  context: { faults: FaultInjector; requests: RequestLog; extra?: AdminRoute },
): Promise<boolean> {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if (!path.startsWith(ADMIN_PREFIX)) return false;
  const route = `${req.method} ${path.slice(ADMIN_PREFIX.length)}`;
  try {
    switch (route) {
      case 'GET /health':
        sendJson(res, 200, { ok: true });
        return true;
      case 'GET /requests':
        sendJson(res, 200, { requests: context.requests.list() });
        return true;
      case 'DELETE /requests':
        context.requests.clear();
        sendJson(res, 200, { ok: true });
        return true;
      case 'POST /faults': {
        const body = await readJson(req);
        const parsed = z.array(faultRuleSchema).safeParse(Array.isArray(body) ? body : [body]);
        if (!parsed.success) {
          const problems = parsed.error.issues.map(
            (issue) => `rule ${issue.path.join('.')}: ${issue.message}`,
          );
          sendJson(res, 400, {
            error: `Invalid fault rule: ${problems.join('; ')}. Expected {match, status?, count?, delayMs?, hold?, message?, after?, exact?, target?, client?}.`,
          });
          return true;
        }
        const rules = parsed.data;
        for (const rule of rules) context.faults.add(rule);
        sendJson(res, 200, { pending: context.faults.pending() });
        return true;
      }
      case 'GET /faults':
        sendJson(res, 200, {
          faults: context.faults.list(),
          taken: context.faults.taken(),
          held: context.faults.held(),
        });
        return true;
      case 'POST /faults/release':
        sendJson(res, 200, { released: context.faults.release() });
        return true;
      case 'DELETE /faults':
        context.faults.clear();
        sendJson(res, 200, { ok: true });
        return true;
      default:
        if (context.extra && (await context.extra(req, res, path.slice(ADMIN_PREFIX.length)))) {
          return true;
        }
        sendJson(res, 404, { error: `no admin route ${route}` });
        return true;
    }
  } catch (error) {
    sendJson(res, 400, { error: error instanceof Error ? error.message : String(error) });
    return true;
  }
}

/** Admin routes tried in turn (an emulator's own and, e.g., its IAM routes); absent ones skipped. */
export function eitherRoute(...routes: readonly (AdminRoute | undefined)[]): AdminRoute {
  return async (req, res, path) => {
    for (const route of routes) if (route && (await route(req, res, path))) return true;
    return false;
  };
}
