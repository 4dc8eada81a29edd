import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pushToEventarc, type DeliveryMode } from './eventarc-conversion';

/** One instance behind the proxy. */
export interface ProxyTarget {
  readonly name: string;
  readonly port: number;
}

/** What the proxy did with one request (also written to its log file as a JSON line). */
export interface ProxyRecord {
  readonly time: string;
  readonly method: string;
  readonly path: string;
  /** The instance that answered, or undefined when none could be reached. */
  readonly instance?: string;
  readonly status: number;
  /** Instances that refused the connection (down) and were skipped. */
  readonly skipped: readonly string[];
  readonly ms: number;
  /** Set in eventarc mode: the request was forwarded in binary content mode with this `ce-id`. */
  readonly eventarc?: { readonly ceId: string; readonly ceSource: string };
}

export interface RoundRobinProxy {
  readonly port: number;
  readonly endpoint: string;
  /** Every request so far, oldest first. */
  records(): readonly ProxyRecord[];
  close(): Promise<void>;
}

// Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are not forwarded.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
]);

/** Thrown when the instance refused the connection: the request never reached it. */
class Unreachable extends Error {}

/**
 * Plays Cloud Run's front end for a function scaled out to several instances: each request goes to
 * the next instance in turn, so duplicate Pub/Sub deliveries land in different processes at once.
 *
 * An instance that refuses the connection (stopped, restarting) is skipped: the request never
 * reached it, so sending it to the next one cannot duplicate anything, just as Cloud Run routes only
 * to live instances. When every instance refuses, or one fails after accepting the request (it may
 * have acted on it), the answer is 502 and Pub/Sub redelivers: at-least-once, as in production.
 * In push mode the path is kept, so functions-framework still derives the CloudEvent source from
 * `/projects/P/topics/T`. In eventarc mode each push is converted to what Eventarc sends (binary
 * content mode, see eventarc-conversion.ts) before it is forwarded; the instance's status code
 * flows back either way, so a non-2xx answer still makes Pub/Sub redeliver.
 */
export async function startRoundRobinProxy(options: {
  readonly targets: readonly ProxyTarget[];
  readonly port?: number;
  readonly logFile?: string;
  readonly delivery?: DeliveryMode;
}): Promise<RoundRobinProxy> {
  if (options.targets.length === 0) throw new Error('the proxy needs at least one target');
  const log = options.logFile
    ? fs.createWriteStream(options.logFile, { flags: 'a', mode: 0o600 })
    : undefined;
  const records: ProxyRecord[] = [];
  let next = 0;

  const server = http.createServer((req, res) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    // Pub/Sub giving up on a push (its deadline) resets the connection: nothing to answer then,
    // and the stack's process must not die of an unhandled 'error' event.
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const first = next;
      next = (next + 1) % options.targets.length;
      void route(req, body, first).then((answer) => {
        const { status, headers, payload, instance, skipped } = answer;
        res.writeHead(status, headers);
        res.end(payload);
        const record: ProxyRecord = {
          time: new Date().toISOString(),
          method: req.method ?? 'GET',
          path: req.url ?? '/',
          ...(instance ? { instance } : {}),
          status,
          skipped,
          ms: Date.now() - started,
          ...('eventarc' in answer && answer.eventarc ? { eventarc: answer.eventarc } : {}),
        };
        records.push(record);
        log?.write(`${JSON.stringify(record)}\n`);
      });
    });
  });

  const route = async (req: http.IncomingMessage, body: Buffer, first: number) => {
    const skipped: string[] = [];
    let outgoing: Outgoing = { path: req.url ?? '/', headers: req.headers, body };
    let eventarc: ProxyRecord['eventarc'];
    if (options.delivery === 'eventarc') {
      const converted = pushToEventarc(req.url ?? '/', body);
      // Not a push from Pub/Sub: nothing Eventarc would ever send, so nothing to forward.
      if (!converted.ok)
        return failure(400, `cannot deliver as Eventarc: ${converted.problem}`, []);
      outgoing = converted.request;
      eventarc = {
        ceId: converted.request.headers['ce-id']!,
        ceSource: converted.request.headers['ce-source']!,
      };
    }
    for (let i = 0; i < options.targets.length; i++) {
      const target = options.targets[(first + i) % options.targets.length]!;
      try {
        const answer = await forward(target, req.method ?? 'POST', outgoing);
        return { ...answer, instance: target.name, skipped, eventarc };
      } catch (error) {
        if (error instanceof Unreachable) {
          skipped.push(target.name);
          continue;
        }
        return failure(502, `instance ${target.name} failed: ${(error as Error).message}`, skipped);
      }
    }
    return failure(502, `no instance reachable (${skipped.join(', ')})`, skipped);
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    endpoint: `http://127.0.0.1:${port}`,
    records: () => [...records],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => (log ? log.end(resolve) : resolve()));
    },
  };
}

function failure(status: number, message: string, skipped: string[]) {
  return {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
    payload: Buffer.from(`round-robin proxy: ${message}\n`),
    instance: undefined,
    skipped,
  };
}

/** What is forwarded: the request as received, or its Eventarc form. */
interface Outgoing {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders | Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** Sends the request to one instance and buffers its answer. */
function forward(
  target: ProxyTarget,
  method: string,
  { path, headers: incoming, body }: Outgoing,
): Promise<{ status: number; headers: http.OutgoingHttpHeaders; payload: Buffer }> {
  const headers: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(incoming))
    if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
  headers['content-length'] = String(body.length);
  headers.host = `127.0.0.1:${target.port}`;
  return new Promise((resolve, reject) => {
    const upstream = http.request(
      {
        host: '127.0.0.1',
        port: target.port,
        method,
        path,
        headers,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const answerHeaders: http.OutgoingHttpHeaders = {};
          for (const [name, value] of Object.entries(response.headers))
            if (!HOP_BY_HOP.has(name) && value !== undefined) answerHeaders[name] = value;
          const payload = Buffer.concat(chunks);
          answerHeaders['content-length'] = String(payload.length);
          resolve({ status: response.statusCode ?? 502, headers: answerHeaders, payload });
        });
      },
    );
    upstream.on('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ECONNREFUSED' ? new Unreachable(error.message) : error),
    );
    upstream.end(body);
  });
}
