import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '../../../emulators/common/free-port';
import {
  startRoundRobinProxy,
  type RoundRobinProxy,
} from '../../../emulators/pullsecret/stack/round-robin-proxy';

/** A stand-in instance that answers with its name, what it received, and a chosen status. */
async function instance(
  name: string,
  answer: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void = (
    req,
    body,
    res,
  ) => {
    res.writeHead(name === 'b' ? 500 : 204, { 'x-instance': name });
    res.end(name === 'b' ? JSON.stringify({ name, path: req.url, body }) : undefined);
  },
) {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => answer(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    name,
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const push = (proxy: RoundRobinProxy, body = '{"message":{"data":"e30="}}') =>
  fetch(`${proxy.endpoint}/projects/demo-hyperfleet/topics/hyperfleet-system-clusters`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'ce-id': 'event-1' },
    body,
  });

describe('round-robin proxy in front of the adapter instances', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of cleanup.splice(0).reverse()) await close();
  });

  it('sends each request to the next instance in turn, keeping path, headers and body, and passes status and body back', async () => {
    const seen: string[] = [];
    const echo = (name: string) =>
      instance(name, (req, body, res) => {
        seen.push(`${name} ${req.method} ${req.url} ${req.headers['ce-id']} ${body}`);
        res.writeHead(name === 'b' ? 500 : 200, { 'x-instance': name });
        res.end(`handled by ${name}`);
      });
    const targets = [await echo('a'), await echo('b')];
    targets.forEach((t) => cleanup.push(t.close));
    const proxy = await startRoundRobinProxy({ targets });
    cleanup.push(proxy.close);

    const answers = [];
    for (let i = 0; i < 4; i++) {
      const response = await push(proxy, `{"n":${i}}`);
      answers.push(
        `${response.status} ${response.headers.get('x-instance')} ${await response.text()}`,
      );
    }
    expect(answers).toEqual([
      '200 a handled by a',
      '500 b handled by b',
      '200 a handled by a',
      '500 b handled by b',
    ]);
    expect(seen).toEqual(
      [0, 1, 2, 3].map(
        (i) =>
          `${i % 2 ? 'b' : 'a'} POST /projects/demo-hyperfleet/topics/hyperfleet-system-clusters event-1 {"n":${i}}`,
      ),
    );
    expect(proxy.records().map((r) => `${r.instance} ${r.status}`)).toEqual([
      'a 200',
      'b 500',
      'a 200',
      'b 500',
    ]);
  });

  it('spreads concurrent requests over the instances', async () => {
    const busy: string[] = [];
    const slow = (name: string) =>
      instance(name, (_req, _body, res) => {
        busy.push(name);
        setTimeout(() => {
          res.writeHead(204);
          res.end();
        }, 100);
      });
    const targets = [await slow('a'), await slow('b')];
    targets.forEach((t) => cleanup.push(t.close));
    const proxy = await startRoundRobinProxy({ targets });
    cleanup.push(proxy.close);
    const statuses = await Promise.all(Array.from({ length: 6 }, () => push(proxy)));
    expect(statuses.map((r) => r.status)).toEqual([204, 204, 204, 204, 204, 204]);
    expect(busy.sort()).toEqual(['a', 'a', 'a', 'b', 'b', 'b']);
  });

  it('skips an instance that refuses connections (it never saw the request) and answers 502 when none is up', async () => {
    const up = await instance('a');
    cleanup.push(up.close);
    const down = { name: 'b', port: await freePort() };
    const proxy = await startRoundRobinProxy({ targets: [down, up] });
    cleanup.push(proxy.close);
    expect((await push(proxy)).status).toBe(204);
    expect((await push(proxy)).status).toBe(204);
    expect(proxy.records().map((r) => `${r.instance} ${r.skipped.join(',')}`)).toEqual([
      'a b',
      'a ',
    ]);

    cleanup.splice(cleanup.indexOf(up.close), 1);
    await up.close();
    const none = await push(proxy);
    expect(none.status).toBe(502);
    expect(await none.text()).toMatch(
      /no instance reachable \(b, a\)|no instance reachable \(a, b\)/,
    );
  });

  it('survives a client that gives up mid-request (Pub/Sub past its push deadline)', async () => {
    const up = await instance('a');
    cleanup.push(up.close);
    const proxy = await startRoundRobinProxy({ targets: [up] });
    cleanup.push(proxy.close);
    await new Promise<void>((resolve) => {
      const request = http.request(`${proxy.endpoint}/projects/p/topics/t`, {
        method: 'POST',
        headers: { 'content-length': '1000' },
      });
      request.on('error', () => resolve());
      request.write('{"partial":', () => setTimeout(() => request.destroy(), 50));
    });
    expect((await push(proxy)).status).toBe(204);
  });

  it('answers 502 (Pub/Sub redelivers) when an instance drops the connection after taking the request', async () => {
    const crashing = await instance('a', (req) => req.socket.destroy());
    cleanup.push(crashing.close);
    const proxy = await startRoundRobinProxy({ targets: [crashing] });
    cleanup.push(proxy.close);
    const response = await push(proxy);
    expect(response.status).toBe(502);
    expect(await response.text()).toContain('instance a failed');
  });
});
