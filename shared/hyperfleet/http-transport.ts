import http from 'node:http';
import https from 'node:https';

/** One HTTP request of the HyperFleet client. */
export interface TransportRequest {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Aborts the request (connection, headers and body); the rejection is the signal's reason. */
  readonly signal?: AbortSignal;
}

/** What the client reads of an answer: the part of fetch's Response it uses. */
export interface TransportResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly statusText: string;
  readonly headers: { get(name: string): string | null };
  json(): Promise<unknown>;
}

/** Sends one request; rejects only when no complete answer arrived (network, timeout). */
export type HttpTransport = (url: string, request: TransportRequest) => Promise<TransportResponse>;

/**
 * Connections kept open between calls: an adapter instance talks to one API, and a new
 * connection per call (plus undici's fetch machinery: streams, body mixins, per-request
 * controllers) was most of an up-to-date event's cost. Idle sockets do not keep a process alive.
 */
const agents = {
  http: new http.Agent({ keepAlive: true }),
  https: new https.Agent({ keepAlive: true }),
};

class Answer implements TransportResponse {
  readonly ok: boolean;

  constructor(
    readonly status: number,
    readonly statusText: string,
    private readonly rawHeaders: http.IncomingHttpHeaders,
    private readonly body: Buffer,
  ) {
    this.ok = status >= 200 && status < 300;
  }

  readonly headers = {
    get: (name: string): string | null => {
      const value = this.rawHeaders[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };

  /**
   * Parses the body; throws SyntaxError when it is not JSON (an empty body included), as fetch,
   * with a message of its own: the parser's quotes the body, which may hold a pull secret.
   */
  json(): Promise<unknown> {
    try {
      return Promise.resolve(JSON.parse(this.body.toString('utf8')) as unknown);
    } catch {
      return Promise.reject(
        new SyntaxError(`the response body (${this.body.length} bytes) is not valid JSON`),
      );
    }
  }
}

/**
 * The HyperFleet client's default transport: node:http(s) over keep-alive agents, the whole body
 * read before it resolves. Behaves as the client relied on fetch to: an aborted signal rejects
 * with its reason (a TimeoutError for AbortSignal.timeout), no answer rejects, any status resolves.
 */
export const nodeHttpTransport: HttpTransport = (url, request) =>
  new Promise<TransportResponse>((resolve, reject) => {
    const target = new URL(url);
    if (target.protocol !== 'https:' && target.protocol !== 'http:') {
      reject(new TypeError(`unsupported protocol ${target.protocol} in ${target.origin}`));
      return;
    }
    const secure = target.protocol === 'https:';
    const signal = request.signal;
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const headers: Record<string, string | number> = { ...request.headers };
    if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);
    const outgoing = (secure ? https : http).request(
      target,
      { method: request.method, headers, agent: secure ? agents.https : agents.http },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', fail);
        incoming.on('end', () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(
            new Answer(
              incoming.statusCode ?? 0,
              incoming.statusMessage ?? '',
              incoming.headers,
              Buffer.concat(chunks),
            ),
          );
        });
      },
    );
    function fail(error: unknown) {
      signal?.removeEventListener('abort', onAbort);
      reject(error);
    }
    function onAbort() {
      outgoing.destroy();
      fail(signal?.reason);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    outgoing.on('error', fail);
    outgoing.end(request.body);
  });
