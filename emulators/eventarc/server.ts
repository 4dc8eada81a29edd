import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as z from 'zod';
import { handleAdminRequest, type AdminRoute } from '../common/admin-routes';
import type { RunningEmulator } from '../common/emulator';
import { FaultInjector } from '../common/fault-injector';
import {
  callerOf,
  MISSING_CREDENTIALS_MESSAGE,
  UNAUTHENTICATED_MESSAGE,
} from '../common/google-caller';
import { applyHttpFault } from '../common/http-faults';
import { readJson, sendJson } from '../common/http';
import { RequestLog } from '../common/request-log';
import {
  eventarcConfigSchema,
  googleError,
  renderTrigger,
  TRIGGER_PATH,
  triggerSchema,
  type EventarcConfig,
  type TriggerInput,
} from './rules';

/** A running Eventarc emulator: the triggers it serves can be changed in-process or over its admin API. */
export interface EventarcEmulator extends RunningEmulator {
  readonly requests: RequestLog;
  readonly faults: FaultInjector;
  /** The triggers now, by full name. */
  triggers(): TriggerInput[];
}

/**
 * Starts the read side of Eventarc's REST API (GetTrigger, ListTriggers; rules.ts) over HTTP, for
 * EVENTARC_EMULATOR_HOST. Callers authenticate with a Google access token, looked up as Google
 * looks it up; what they may read is the configuration's grants. Admin routes (/_emulator):
 *   GET /triggers, POST /triggers (a trigger: rules.ts triggerSchema), DELETE /triggers/NAME
 *   (the trigger's short or full name), PUT /grants ({email: [permissions]}).
 */
export async function startEventarcEmulator(options: {
  readonly config: z.input<typeof eventarcConfigSchema>;
  readonly host?: string;
  readonly port?: number;
}): Promise<EventarcEmulator> {
  const config: EventarcConfig = eventarcConfigSchema.parse(options.config);
  const triggers = new Map<string, { trigger: TriggerInput; created: Date }>(
    config.triggers.map((t) => [t.name, { trigger: t, created: new Date() }]),
  );
  let grants = config.grants;
  const requests = new RequestLog();
  const faults = new FaultInjector();
  const host = options.host ?? '127.0.0.1';

  const admin: AdminRoute = async (req, res, path) => {
    if (req.method === 'GET' && path === '/triggers') {
      sendJson(res, 200, { triggers: [...triggers.values()].map((t) => t.trigger) });
      return true;
    }
    if (req.method === 'POST' && path === '/triggers') {
      const trigger = triggerSchema.parse(await readJson(req));
      triggers.set(trigger.name, { trigger, created: new Date() });
      sendJson(res, 200, { triggers: [...triggers.keys()] });
      return true;
    }
    const deletion = /^\/triggers\/(.+)$/.exec(path);
    if (req.method === 'DELETE' && deletion) {
      const wanted = decodeURIComponent(deletion[1]!);
      const name = [...triggers.keys()].find((n) => n === wanted || n.endsWith(`/${wanted}`));
      if (name) triggers.delete(name);
      sendJson(res, name ? 200 : 404, name ? { deleted: name } : { error: `no trigger ${wanted}` });
      return true;
    }
    if (req.method === 'PUT' && path === '/grants') {
      grants = z.record(z.string(), z.array(z.string())).parse(await readJson(req));
      sendJson(res, 200, { grants });
      return true;
    }
    return false;
  };

  const answer = (
    res: http.ServerResponse,
    method: string,
    target: string,
    code: number,
    body: unknown,
  ) => {
    requests.add({ method, target, outcome: code });
    sendJson(res, code, body);
  };

  async function serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (await handleAdminRequest(req, res, { faults, requests, extra: admin })) return;
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const match = TRIGGER_PATH.exec(path);
    if (!match || req.method !== 'GET') {
      answer(
        res,
        `${req.method} ${path}`,
        path,
        404,
        googleError(404, 'NOT_FOUND', `no route ${req.method} ${path}`),
      );
      return;
    }
    const parent = match[1]!;
    const triggerId = match[2];
    const method = triggerId === undefined ? 'ListTriggers' : 'GetTrigger';
    const resource = triggerId === undefined ? parent : `${parent}/triggers/${triggerId}`;
    // Faults match `GET /v1/...`, as on the other HTTP emulators.
    const failure = await applyHttpFault(faults, `GET ${path}`, res, ({ status, message }) =>
      sendJson(res, status, googleError(status, 'UNAVAILABLE', message ?? 'injected fault')),
    );
    if (failure) {
      answer(
        res,
        method,
        resource,
        failure.status,
        googleError(failure.status, 'UNAVAILABLE', failure.message ?? 'injected fault'),
      );
      return;
    }
    const caller = await callerOf(
      req.headers.authorization,
      config.tokenInfoUrl,
      (id) => config.serviceAccounts[id],
    );
    if (caller.kind !== 'principal') {
      const message =
        caller.kind === 'invalid' ? UNAUTHENTICATED_MESSAGE : MISSING_CREDENTIALS_MESSAGE;
      answer(res, method, resource, 401, googleError(401, 'UNAUTHENTICATED', message));
      return;
    }
    const permission = triggerId === undefined ? 'eventarc.triggers.list' : 'eventarc.triggers.get';
    const emails = caller.principal.members
      .filter((m) => m.includes(':'))
      .map((m) => m.slice(m.indexOf(':') + 1));
    if (!emails.some((email) => grants[email]?.includes(permission))) {
      answer(
        res,
        method,
        resource,
        403,
        googleError(403, 'PERMISSION_DENIED', `Permission '${permission}' denied on '${resource}'`),
      );
      return;
    }
    if (triggerId === undefined) {
      const listed = [...triggers.values()]
        .filter((t) => t.trigger.name.startsWith(`${parent}/triggers/`))
        .sort((a, b) => a.trigger.name.localeCompare(b.trigger.name))
        .map((t) => renderTrigger(t.trigger, t.created));
      answer(res, method, resource, 200, listed.length > 0 ? { triggers: listed } : {});
      return;
    }
    const found = triggers.get(resource);
    if (!found) {
      answer(
        res,
        method,
        resource,
        404,
        googleError(404, 'NOT_FOUND', `Resource '${resource}' was not found`),
      );
      return;
    }
    answer(res, method, resource, 200, renderTrigger(found.trigger, found.created));
  }

  const server = http.createServer((req, res) => {
    void serve(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        sendJson(
          res,
          400,
          googleError(
            400,
            'INVALID_ARGUMENT',
            error instanceof Error ? error.message : String(error),
          ),
        );
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const address = `${host}:${(server.address() as AddressInfo).port}`;
  const endpoint = `http://${address}`;
  return {
    name: 'eventarc',
    endpoint,
    requests,
    faults,
    triggers: () => [...triggers.values()].map((t) => t.trigger),
    info: () => ({
      name: 'eventarc',
      endpoint,
      admin: endpoint,
      triggers: [...triggers.keys()],
      env: { EVENTARC_EMULATOR_HOST: address },
    }),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
