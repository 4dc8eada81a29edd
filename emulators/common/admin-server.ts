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

/** Starts the admin API (see admin-routes.ts) on its own port; 0 picks a free one. */
export async function startAdminServer(
  host: string,
  port: number,
  context: { faults: FaultInjector; requests: RequestLog; extra?: AdminRoute },
): Promise<AdminServer> {
  const server = http.createServer((req, res) => {
    void handleAdminRequest(req, res, context).then((handled) => {
      if (!handled) {
        res.writeHead(404);
        res.end();
      }
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
