import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carries it, flattened for assertions. */
export interface ReceivedSpan {
  readonly serviceName: string;
  readonly resource: Record<string, unknown>;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly attributes: Record<string, unknown>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
}

interface OtlpKeyValue {
  key: string;
  value: Record<string, unknown>;
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: OtlpKeyValue[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

const valueOf = (value: Record<string, unknown>): unknown => {
  if ('intValue' in value) return Number(value.intValue);
  return Object.values(value)[0];
};
const attributesOf = (list: OtlpKeyValue[] = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));

/** A tiny OTLP/HTTP JSON receiver (POST /v1/traces), keeping every request it got. */
export class OtlpTestReceiver {
  readonly bodies: string[] = [];
  readonly requests: { path: string; contentType: string | undefined }[] = [];
  /** The status each request was answered with, in order (a refused export is counted here). */
  readonly answered: number[] = [];
  /** The status every export gets (set 400 to make exports fail without retries). */
  answerStatus = 200;
  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<OtlpTestReceiver> {
    const server = http.createServer();
    const receiver = new OtlpTestReceiver(server);
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        receiver.requests.push({
          path: request.url ?? '',
          contentType: request.headers['content-type'],
        });
        receiver.bodies.push(Buffer.concat(chunks).toString('utf8'));
        receiver.answered.push(receiver.answerStatus);
        response.writeHead(receiver.answerStatus, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Every span received so far. */
  spans(): ReceivedSpan[] {
    return this.bodies.flatMap((body) =>
      ((JSON.parse(body) as OtlpExport).resourceSpans ?? []).flatMap((resourceSpans) => {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
          (scope.spans ?? []).map((span) => ({
            serviceName: String(resource['service.name']),
            resource,
            traceId: span.traceId,
            spanId: span.spanId,
            ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
            statusCode: span.status?.code ?? 0,
          })),
        );
      }),
    );
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
