import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { handleAdminRequest, type AdminRoute } from './admin-routes';
import type { ServingCertificate } from './certificates';
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
 * Manager emulator's Resource Manager testIamPermissions, the Cloud Run Admin API's jobs.run).
 * With `certificate` the port serves HTTPS, as the emulator's gRPC port then serves TLS
 * (grpc-server.ts servingCredentials): a REST client reaches it as it reaches Google.
 */
export async function startAdminServer(
  host: string,
  port: number,
  context: {
    faults: FaultInjector;
    requests: RequestLog;
    extra?: AdminRoute;
    api?: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<boolean>;
    certificate?: ServingCertificate;
  },
): Promise<AdminServer> {
  const listener: http.RequestListener = (req, res) => {
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
  };
  const server = context.certificate
    ? https.createServer(
        { key: context.certificate.keyPem, cert: context.certificate.certPem },
        listener,
      )
    : http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `${context.certificate ? 'https' : 'http'}://${host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
