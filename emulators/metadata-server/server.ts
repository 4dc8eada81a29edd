import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleAdminRequest } from '../common/admin-routes';
import type { RunningEmulator } from '../common/emulator';
import { FaultInjector } from '../common/fault-injector';
import { BodyError } from '../common/http';
import { applyHttpFault, type HttpFailure } from '../common/http-faults';
import { RequestLog } from '../common/request-log';
import { metadataAdminRoutes } from './admin';
import { serveMetadata } from './metadata-routes';
import { buildTree } from './metadata-tree';
import { derivedNumber } from '../common/derived-number';
import { resolveOptions, type MetadataServerOptions } from './options';
import { METADATA_HEADERS, TOKENINFO_PATH, type Answer } from './rules';
import { serveTokenInfo } from './tokeninfo';
import { TokenBook, type IssuedToken } from './token-book';

export { MetadataServerOptionsError, type MetadataServerOptions } from './options';
export type { IssuedToken } from './token-book';

/** A running metadata server; `lookup`, `faults` and `requests` are for in-process tests. */
export interface MetadataServerEmulator extends RunningEmulator {
  /** `http://127.0.0.1:PORT`: the metadata tree, token info and the admin API. */
  readonly endpoint: string;
  /** `127.0.0.1:PORT`: the value of GCE_METADATA_HOST for a client. */
  readonly host: string;
  /** Google's token-info endpoint, as this server serves it (`${endpoint}/tokeninfo`). */
  readonly tokenInfoUrl: string;
  readonly serviceAccount: string;
  readonly uniqueId: string;
  /** Every account served (the main one first): its own GCE_METADATA_HOST and unique id. */
  readonly accounts: readonly ServedAccount[];
  readonly faults: FaultInjector;
  readonly requests: RequestLog;
  /** What is known of a live token this server issued; undefined if unknown or expired. */
  lookup(token: string): IssuedToken | undefined;
}

/** One service account and the listener that serves its instance metadata. */
export interface ServedAccount {
  readonly email: string;
  readonly uniqueId: string;
  /** `127.0.0.1:PORT`: GCE_METADATA_HOST of the component that runs as this account. */
  readonly host: string;
}

/** An injected fault, answered as the metadata server (an HTML page) or token info (JSON) would. */
function faultAnswer(pathname: string, failure: HttpFailure): Answer {
  const message = failure.message ?? http.STATUS_CODES[failure.status] ?? 'Error';
  return pathname === TOKENINFO_PATH
    ? {
        status: failure.status,
        contentType: 'application/json; charset=UTF-8',
        body: JSON.stringify({ error: failure.code ?? 'server_error', error_description: message }),
      }
    : { status: failure.status, contentType: 'text/html; charset=UTF-8', body: `${message}\n` };
}

function send(res: http.ServerResponse, pathname: string, answer: Answer): void {
  if (res.headersSent) return;
  res.writeHead(answer.status, {
    ...(pathname === TOKENINFO_PATH ? {} : METADATA_HEADERS),
    'Content-Type': answer.contentType,
    'Content-Length': Buffer.byteLength(answer.body),
    ...answer.headers,
  });
  res.end(answer.body);
}

/**
 * Starts the metadata server of a Cloud Run instance (rules.ts) on plain HTTP: what
 * google-auth-library reaches when the job runs with GCE_METADATA_HOST pointing here and
 * CLOUD_RUN_JOB set. It also serves Google's token info for the tokens it issued, and a control
 * API under /_emulator (admin-routes.ts, admin.ts). Port 0 picks a free port.
 */
export async function startMetadataServer(
  options: MetadataServerOptions,
): Promise<MetadataServerEmulator> {
  const o = resolveOptions(options);
  const tokens = new TokenBook(o.tokenLifetimeSeconds, o.now);
  const faults = new FaultInjector();
  const requests = new RequestLog();
  const emails = [o.serviceAccount, ...o.additionalAccounts.filter((e) => e !== o.serviceAccount)];

  /** The handler of one account's listener: its own metadata tree, the shared tokens and token info. */
  const handlerFor = (account: { email: string; uniqueId: string }) => {
    const context = {
      tree: buildTree({ ...o, account, instanceId: randomBytes(48).toString('hex') }),
      tokens,
      defaultScopes: o.defaultScopes,
    };
    return async (req: http.IncomingMessage, res: http.ServerResponse) => {
      if (await handleAdminRequest(req, res, { faults, requests, extra: admin })) return;
      const url = new URL(req.url ?? '/', 'http://metadata.google.internal');
      const method = req.method ?? 'GET';
      // The path only: a token-info query carries the token, which no log may hold.
      const answer = (a: Answer) => {
        requests.add({ method, target: url.pathname, outcome: a.status });
        send(res, url.pathname, a);
      };
      const fault = await applyHttpFault(faults, `${method} ${url.pathname}`, res, (f) =>
        send(res, url.pathname, faultAnswer(url.pathname, f)),
      );
      if (fault) return answer(faultAnswer(url.pathname, fault));
      if (url.pathname === TOKENINFO_PATH)
        return answer(await serveTokenInfo(req, url, tokens, o.now));
      answer(serveMetadata(method, url, req.headers, context));
    };
  };
  const listen = async (account: { email: string; uniqueId: string }, port: number) => {
    const handle = handlerFor(account);
    const server = http.createServer((req, res) => {
      handle(req, res).catch((error: unknown) => {
        const status = error instanceof BodyError ? error.status : 500;
        send(res, '', { status, contentType: 'text/plain', body: `${String(error)}\n` });
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, o.host, resolve);
    });
    return { server, host: `${o.host}:${(server.address() as AddressInfo).port}` };
  };
  const served: (ServedAccount & { server: http.Server })[] = [];
  const servedAccounts = emails.map((email, index) => ({
    email,
    uniqueId: index === 0 ? o.uniqueId : derivedNumber(`unique-id:${email}`, 21),
  }));
  const admin = metadataAdminRoutes(tokens, o.now, servedAccounts);
  for (const [index, email] of emails.entries()) {
    const uniqueId = index === 0 ? o.uniqueId : derivedNumber(`unique-id:${email}`, 21);
    const { server, host } = await listen({ email, uniqueId }, index === 0 ? o.port : 0);
    served.push({ email, uniqueId, host, server });
  }
  const host = served[0]!.host;
  const endpoint = `http://${host}`;
  const tokenInfoUrl = `${endpoint}${TOKENINFO_PATH}`;
  const accounts = served.map(({ email, uniqueId, host: h }) => ({ email, uniqueId, host: h }));
  return {
    name: 'metadata-server',
    endpoint,
    host,
    tokenInfoUrl,
    serviceAccount: o.serviceAccount,
    uniqueId: o.uniqueId,
    accounts,
    faults,
    requests,
    lookup: (token) => tokens.lookup(token),
    info: () => ({
      name: 'metadata-server',
      endpoint,
      admin: endpoint,
      tokenInfoUrl,
      serviceAccount: o.serviceAccount,
      uniqueId: o.uniqueId,
      projectId: o.projectId,
      projectNumber: o.projectNumber,
      region: o.region,
      tokenLifetimeSeconds: tokens.lifetime,
      accounts,
      env: { GCE_METADATA_HOST: host },
    }),
    stop: () =>
      Promise.all(
        served.map(
          ({ server }) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      ).then(() => undefined),
  };
}
