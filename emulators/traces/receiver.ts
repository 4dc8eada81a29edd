import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { flattenSpans } from './otlp-json';
import {
  checkEncoding,
  decodeExport,
  DEFAULT_MAX_BODY_BYTES,
  exportResponse,
  failure,
  routeRequest,
  tooLarge,
  type Answer,
} from './receiver-rules';
import { SpanStore } from './span-store';

export interface TraceReceiverOptions {
  /** Where spans are kept (the stack's `.local/traces`). */
  readonly dir: string;
  readonly host?: string;
  readonly port?: number;
  readonly maxBodyBytes?: number;
}

export interface TraceReceiver {
  /** `http://host:port`: what OTEL_EXPORTER_OTLP_ENDPOINT is set to (exporters add /v1/traces). */
  readonly endpoint: string;
  readonly dir: string;
  /** Spans stored since start (for the stack's progress line and tests). */
  stored(): number;
  close(): Promise<void>;
}

/** Reads a body up to `limit` bytes; undefined when it is larger (the rest is drained). */
async function readLimited(req: http.IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) over = true;
    if (!over) chunks.push(chunk as Buffer);
  }
  return over ? undefined : Buffer.concat(chunks);
}

/**
 * The local stack's OTLP/HTTP JSON trace receiver (`POST /v1/traces`): what Cloud Trace's OTLP
 * endpoint is in GCP. Every component exports to it with the real OTLP exporter; it answers as
 * the OTLP spec says (receiver-rules.ts) and keeps spans in a SpanStore.
 */
export async function startTraceReceiver(options: TraceReceiverOptions): Promise<TraceReceiver> {
  const store = new SpanStore(options.dir);
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  let stored = 0;

  const handle = async (req: http.IncomingMessage): Promise<Answer> => {
    const url = new URL(req.url ?? '/', 'http://receiver');
    const routed = routeRequest(req.method ?? 'GET', url.pathname);
    if (routed) return routed;
    const encoding = checkEncoding(req.headers['content-type'], req.headers['content-encoding']);
    if (typeof encoding !== 'string') return encoding;
    const raw = await readLimited(req, limit);
    if (!raw) return tooLarge(limit, 'body');
    let body = raw;
    if (encoding === 'gzip') {
      try {
        body = zlib.gunzipSync(raw, { maxOutputLength: limit });
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE'
          ? tooLarge(limit, 'decompressed body')
          : failure(400, 'The body is not valid gzip although Content-Encoding says gzip.');
      }
    }
    const request = decodeExport(body.toString('utf8'));
    if ('status' in request) return request as Answer;
    const { spans, rejected } = flattenSpans(request);
    try {
      await store.append(spans);
    } catch (error) {
      // Retryable for the exporter (503): a full disk or a removed directory may come back.
      return failure(
        503,
        `Could not store spans in ${options.dir}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
      );
    }
    stored += spans.length;
    return { status: 200, body: exportResponse(rejected) };
  };

  const server = http.createServer((req, res) => {
    handle(req).then(
      (answer) => send(res, answer),
      (error: unknown) => send(res, failure(400, `Could not read the request: ${String(error)}`)),
    );
  });
  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve),
  );
  const endpoint = `http://${options.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    dir: options.dir,
    stored: () => stored,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res: http.ServerResponse, answer: Answer): void {
  if (res.headersSent) return;
  const text = JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...answer.headers,
  });
  res.end(text);
}
