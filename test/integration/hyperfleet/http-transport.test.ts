import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { nodeHttpTransport } from '../../../shared/hyperfleet/http-transport';

describe("HyperFleet client's transport (node:http, keep-alive)", () => {
  let server: http.Server;
  let base: string;
  let connections = 0;
  const received: { method?: string; body: string; headers: http.IncomingHttpHeaders }[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ method: req.method, body, headers: req.headers });
        if (req.url === '/slow') return; // never answers
        if (req.url === '/html') {
          res.writeHead(502, 'Bad Gateway', { 'content-type': 'text/html' });
          res.end('<html>proxy error</html>');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json', 'Retry-After': '7' });
        res.end(JSON.stringify({ echo: body }));
      });
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends method, headers and body, and reads status, headers and JSON', async () => {
    const answer = await nodeHttpTransport(`${base}/clusters/a`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
      body: '{"ok":true}',
    });
    expect(answer).toMatchObject({ status: 200, ok: true });
    expect(answer.headers.get('RETRY-AFTER')).toBe('7');
    expect(answer.headers.get('x-absent')).toBeNull();
    expect(await answer.json()).toEqual({ echo: '{"ok":true}' });
    expect(received.at(-1)).toMatchObject({
      method: 'PUT',
      body: '{"ok":true}',
      headers: expect.objectContaining({ authorization: 'Bearer t', 'content-length': '11' }),
    });
  });

  it('keeps one connection for consecutive calls', async () => {
    const before = connections;
    for (let i = 0; i < 5; i++)
      await nodeHttpTransport(`${base}/clusters/b`, { method: 'GET', headers: {} });
    expect(connections - before).toBeLessThanOrEqual(1);
  });

  it('resolves error statuses as answers; a body that is not JSON fails json() with SyntaxError', async () => {
    const answer = await nodeHttpTransport(`${base}/html`, { method: 'GET', headers: {} });
    expect(answer).toMatchObject({ status: 502, ok: false, statusText: 'Bad Gateway' });
    await expect(answer.json()).rejects.toThrow(SyntaxError);
  });

  it('rejects with the signal reason (TimeoutError) when no answer comes in time', async () => {
    await expect(
      nodeHttpTransport(`${base}/slow`, {
        method: 'GET',
        headers: {},
        signal: AbortSignal.timeout(100),
      }),
    ).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('rejects when nothing listens, and for a URL that is not http(s)', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(
      nodeHttpTransport(`http://127.0.0.1:${port}/x`, { method: 'GET', headers: {} }),
    ).rejects.toThrow(/ECONNREFUSED/);
    await expect(
      nodeHttpTransport('ftp://example.test/x', { method: 'GET', headers: {} }),
    ).rejects.toThrow(/unsupported protocol ftp:/);
  });
});
