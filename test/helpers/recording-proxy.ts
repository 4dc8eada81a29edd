import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** An HTTP proxy in front of one server that keeps each request's method, path and headers. */
export class RecordingProxy {
  readonly requests: { method: string; path: string; headers: http.IncomingHttpHeaders }[] = [];
  private constructor(private readonly server: http.Server) {}

  static async start(target: string): Promise<RecordingProxy> {
    const server = http.createServer();
    const proxy = new RecordingProxy(server);
    const { hostname, port } = new URL(target);
    server.on('request', (request, response) => {
      proxy.requests.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
      });
      const forward = http.request(
        { hostname, port, method: request.method, path: request.url, headers: request.headers },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      forward.on('error', () => response.writeHead(502).end());
      request.pipe(forward);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
