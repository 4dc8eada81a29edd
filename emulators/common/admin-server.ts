import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleAdminRequest, type AdminRoute } from './admin-routes';
import type { FaultInjector } from './fault-injector';
import type { RequestLog } from './request-log';

/** The HTTP control server a gRPC emulator runs beside its gRPC port. */
export interface AdminServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts the admin API (see admin-routes.ts) on its own port; 0 picks a free one. `api` serves the
 * paths outside /_emulator, for an emulator that also answers a REST API there (the Secret
 * Manager emulator's Resource Manager testIamPermissions).
 */
export async function startAdminServer(
  host: string,
  port: number,
  context: {
    faults: FaultInjector;
    requests: RequestLog;
    extra?: AdminRoute;
    api?: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<boolean>;
  },
): Promise<AdminServer> {
  const server = http.createServer((req, res) => {
    void (async () => {
      const handled =
        (await handleAdminRequest(req, res, context)) ||
        (context.api ? await context.api(req, res) : false);
      if (!handled) {
        res.writeHead(404);
        res.end();
      }
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
