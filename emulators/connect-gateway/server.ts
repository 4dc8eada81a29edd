import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as z from 'zod';
import { handleAdminRequest } from '../common/admin-routes';
import type { ServingCertificate } from '../common/certificates';
import type { RunningEmulator } from '../common/emulator';
import { FaultInjector } from '../common/fault-injector';
import { lookupGoogleToken } from '../common/google-token-info';
import { sendJson } from '../common/http';
import { RequestLog } from '../common/request-log';
import { GATEWAY_ROLES, googleError, MEMBERSHIP_PATH, permissionFor } from './rules';

/** One fleet membership the gateway forwards to: a Kubernetes API and the CA it is served with. */
export const membershipSchema = z.object({
  projectNumber: z.string().regex(/^[0-9]+$/, 'must be a project number'),
  location: z.string().min(1),
  name: z.string().min(1),
  backend: z.url(),
  backendCaPem: z.string().min(1),
});

export const connectGatewayConfigSchema = z.object({
  memberships: z.array(membershipSchema).min(1),
  /** IAM on the fleet host project: principal (email or numeric unique id) -> gateway role. */
  grants: z.record(z.string(), z.enum(Object.keys(GATEWAY_ROLES) as [string, ...string[]])),
  /** Where Google access tokens are verified (the metadata server's /tokeninfo). */
  tokenInfoUrl: z.url(),
});
export type ConnectGatewayConfig = z.infer<typeof connectGatewayConfigSchema>;

/** A running Connect Gateway emulator. */
export interface ConnectGatewayEmulator extends RunningEmulator {
  /** The gateway URL of a membership, as a management cluster endpoint names it. */
  membershipUrl(name: string): string;
  readonly requests: RequestLog;
  readonly faults: FaultInjector;
}

/**
 * Starts an HTTPS Connect Gateway (its certificate from the local "public" CA, as the real
 * gateway's is publicly trusted): it verifies the caller's Google access token, checks the
 * gateway permission for the method, and forwards the request with the caller's token to the
 * membership's Kubernetes API, which authenticates the same Google identity (GKE memberships).
 */
export async function startConnectGatewayEmulator(options: {
  readonly config: ConnectGatewayConfig;
  readonly certificate: ServingCertificate;
  readonly host?: string;
  readonly port?: number;
}): Promise<ConnectGatewayEmulator> {
  const config = connectGatewayConfigSchema.parse(options.config);
  const requests = new RequestLog();
  const faults = new FaultInjector();
  const host = options.host ?? 'localhost';
  const server = https.createServer(
    { key: options.certificate.keyPem, cert: options.certificate.certPem },
    (req, res) => {
      void serve(req, res).catch((error: unknown) => {
        if (!res.headersSent)
          sendJson(res, 502, googleError(502, 'UNAVAILABLE', `gateway: ${String(error)}`));
        else res.destroy();
      });
    },
  );
  const deny = (
    res: http.ServerResponse,
    target: string,
    code: number,
    status: string,
    message: string,
  ) => {
    requests.add({ method: 'GATEWAY', target, outcome: code });
    sendJson(res, code, googleError(code, status, message));
  };

  async function serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (await handleAdminRequest(req, res, { faults, requests })) return;
    const url = new URL(req.url ?? '/', 'https://gateway');
    const match = MEMBERSHIP_PATH.exec(url.pathname);
    const membership = match
      ? config.memberships.find(
          (m) => m.projectNumber === match[1] && m.location === match[2] && m.name === match[3],
        )
      : undefined;
    if (!match || !membership)
      return deny(res, url.pathname, 404, 'NOT_FOUND', `Requested entity was not found.`);
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const owner = token ? await lookupGoogleToken(config.tokenInfoUrl, token) : undefined;
    if (!owner)
      return deny(
        res,
        url.pathname,
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      );
    const permission = permissionFor(req.method ?? 'GET');
    const role = config.grants[owner.email ?? ''] ?? config.grants[owner.uniqueId];
    if (!role || !GATEWAY_ROLES[role]?.includes(permission))
      return deny(
        res,
        url.pathname,
        403,
        'PERMISSION_DENIED',
        `Permission '${permission}' denied on resource '//gkehub.googleapis.com/projects/${membership.projectNumber}/locations/${membership.location}/memberships/${membership.name}' (or it may not exist).`,
      );
    await forward(req, res, membership, `${match[4] ?? '/'}${url.search}`);
  }

  function forward(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    membership: z.infer<typeof membershipSchema>,
    path: string,
  ): Promise<void> {
    return new Promise((resolve, reject) => {
      const backend = new URL(membership.backend);
      const headers = { ...req.headers, host: backend.host };
      const upstream = https.request(
        {
          hostname: backend.hostname,
          port: backend.port,
          path,
          method: req.method,
          headers,
          ca: membership.backendCaPem,
        },
        (answer) => {
          requests.add({
            method: req.method ?? 'GET',
            target: path,
            outcome: answer.statusCode ?? 0,
          });
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          answer.on('end', resolve);
          answer.on('error', reject);
        },
      );
      upstream.on('error', reject);
      req.pipe(upstream);
      res.on('close', () => upstream.destroy());
    });
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const endpoint = `https://${host}:${port}`;
  const membershipUrl = (name: string) => {
    const membership = config.memberships.find((m) => m.name === name);
    if (!membership) throw new Error(`No membership ${name} on the gateway`);
    return `${endpoint}/v1/projects/${membership.projectNumber}/locations/${membership.location}/gkeMemberships/${membership.name}`;
  };
  return {
    name: 'connect-gateway',
    endpoint,
    requests,
    faults,
    membershipUrl,
    info: () => ({
      name: 'connect-gateway',
      endpoint,
      admin: endpoint,
      memberships: Object.fromEntries(
        config.memberships.map((m) => [m.name, membershipUrl(m.name)]),
      ),
    }),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
