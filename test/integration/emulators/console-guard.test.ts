// Issue 26, item 7: the local console drives the stack (creates and deletes clusters, injects
// faults). Any web page the developer opens could otherwise drive it too: a cross-origin POST
// without a body needs no CORS preflight, and DNS rebinding (a name of the attacker's that resolves
// to 127.0.0.1) makes the browser treat the console as the attacker's own origin. So the console
// listens on 127.0.0.1 only, answers only to Host 127.0.0.1:PORT or localhost:PORT, refuses an
// action (POST/PUT/DELETE) from another Origin, and requires on every action the token its page
// carries (new at each start). Each refused request must leave the stack untouched: the console's
// HyperFleet emulator here is a recorder, and the fault preset "hyperfleet-503" is one call to it.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startConsole, type LocalConsole } from '../../../emulators/pullsecret/console/server';

interface Answer {
  status: number;
  body: string;
}

/** A raw request with exactly these headers (fetch would set Host and Origin itself). */
function request(
  endpoint: string,
  method: string,
  pathname: string,
  headers: Record<string, string>,
): Promise<Answer> {
  const url = new URL(endpoint);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method, path: pathname, headers, setHost: false },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

let dir: string;
let hyperfleet: http.Server;
const recorded: string[] = [];
let localConsole: LocalConsole;
let own: { host: string; origin: string };
let token: string;
let pageBody: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'console-guard-'));
  hyperfleet = http.createServer((req, res) => {
    recorded.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => hyperfleet.listen(0, '127.0.0.1', resolve));
  const recorder = `http://127.0.0.1:${(hyperfleet.address() as AddressInfo).port}`;
  const kubeconfig = path.join(dir, 'kubeconfig');
  fs.writeFileSync(
    kubeconfig,
    'clusters:\n- cluster:\n    server: https://127.0.0.1:9\n    certificate-authority-data: ""\nusers:\n- user:\n    token: t\n',
  );
  // Nothing else is reached by the requests below: the other endpoints answer nothing.
  localConsole = await startConsole({
    project: 'demo-console-guard',
    job: 'projects/demo-console-guard/locations/us-central1/jobs/pullsecret-job',
    kubeconfig,
    endpoints: {
      hyperfleetApi: recorder,
      secretManager: '127.0.0.1:9',
      secretManagerAdmin: 'http://127.0.0.1:9',
      // The console calls Secret Manager as the operator, over TLS trusting this CA file.
      publicCaFile: kubeconfig,
      operatorMetadata: '127.0.0.1:9',
      kubeApiServer: 'https://127.0.0.1:9',
      cloudRun: '127.0.0.1:9',
      cloudRunAdmin: 'http://127.0.0.1:9',
      pubsub: '127.0.0.1:9',
    },
    topics: {},
    subscriptions: {},
    env: {},
  });
  const port = new URL(localConsole.endpoint).port;
  own = { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` };
  const page = await request(localConsole.endpoint, 'GET', '/', { host: own.host });
  pageBody = page.body;
  token = /<meta name="console-token" content="([A-Za-z0-9_-]{32,})">/.exec(page.body)?.[1] ?? '';
}, 30_000);

afterAll(async () => {
  await localConsole?.close();
  await new Promise((resolve) => hyperfleet?.close(resolve));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => recorded.splice(0));

const INJECT = '/api/faults/hyperfleet-503';

describe('the local console refuses what another page could send', () => {
  it('listens on 127.0.0.1 only', () => {
    expect(new URL(localConsole.endpoint).hostname).toBe('127.0.0.1');
  });

  it('serves its page a per-start token, which the page sends with every action', () => {
    expect(token).not.toBe('');
    expect(pageBody).toContain("fetch(path, { method, headers: { 'x-console-token': TOKEN } })");
    // Every action of the page goes through act() (test/e2e/console.test.ts clicks them all).
    expect(pageBody.match(/fetch\(/g)).toHaveLength(4);
  });

  const NO_TOKEN = /an action needs this console's token in x-console-token/;
  const FOREIGN = 'http://evil.example';
  it.each<[string, string, string, 'own' | 'foreign' | 'none', RegExp]>([
    [
      'a cross-origin body-less POST',
      'POST',
      INJECT,
      'foreign',
      /Origin http:\/\/evil\.example may not act/,
    ],
    ['a same-origin POST without the token', 'POST', INJECT, 'own', NO_TOKEN],
    ['a POST without Origin or token (curl)', 'POST', INJECT, 'none', NO_TOKEN],
    ['a DELETE without the token', 'DELETE', '/api/faults', 'own', NO_TOKEN],
    ['a DELETE of a cluster without the token', 'DELETE', '/api/clusters/c1', 'own', NO_TOKEN],
  ])('%s: 403, nothing done', async (_case, method, pathname, from, message) => {
    const origin: Record<string, string> = {
      own: { origin: own.origin },
      foreign: { origin: FOREIGN },
      none: {},
    }[from];
    const answer = await request(localConsole.endpoint, method, pathname, {
      host: own.host,
      ...origin,
    });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toEqual({ error: expect.stringMatching(message) });
    expect(recorded).toEqual([]);
  });

  it('a POST with a wrong token: 403, nothing done', async () => {
    const answer = await request(localConsole.endpoint, 'POST', INJECT, {
      host: own.host,
      'x-console-token': `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`,
    });
    expect(answer.status).toBe(403);
    expect(recorded).toEqual([]);
  });

  it('a POST carrying the token from another Origin: 403, nothing done', async () => {
    const answer = await request(localConsole.endpoint, 'POST', INJECT, {
      host: own.host,
      origin: 'http://evil.example',
      'x-console-token': token,
    });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).error).toMatch(/Origin http:\/\/evil\.example/);
    expect(recorded).toEqual([]);
  });

  it.each([
    ['GET', '/'],
    ['GET', '/api/state'],
    ['POST', INJECT],
  ])(
    'a foreign Host (DNS rebinding) on %s %s: 403, nothing done, no token served',
    async (method, pathname) => {
      const port = new URL(localConsole.endpoint).port;
      const answer = await request(localConsole.endpoint, method, pathname, {
        host: `rebind.evil.example:${port}`,
        origin: `http://rebind.evil.example:${port}`,
        'x-console-token': token,
      });
      expect(answer.status).toBe(403);
      expect(answer.body).not.toContain(token);
      expect(JSON.parse(answer.body).error).toMatch(/Host rebind\.evil\.example/);
      expect(recorded).toEqual([]);
    },
  );
});

describe('the local console does what its own page asks', () => {
  it('a same-origin POST with the token injects the fault', async () => {
    const answer = await request(localConsole.endpoint, 'POST', INJECT, {
      host: own.host,
      origin: own.origin,
      'x-console-token': token,
    });
    expect(answer).toEqual({ status: 200, body: '{"ok":true}' });
    expect(recorded).toEqual(['POST /_emulator/faults']);
  });

  it('as http://localhost:PORT too, and from a script without an Origin (curl) with the token', async () => {
    const port = new URL(localConsole.endpoint).port;
    const viaLocalhost = await request(localConsole.endpoint, 'POST', INJECT, {
      host: `localhost:${port}`,
      origin: `http://localhost:${port}`,
      'x-console-token': token,
    });
    const noOrigin = await request(localConsole.endpoint, 'POST', INJECT, {
      host: own.host,
      'x-console-token': token,
    });
    expect([viaLocalhost.status, noOrigin.status]).toEqual([200, 200]);
    expect(recorded).toEqual(['POST /_emulator/faults', 'POST /_emulator/faults']);
  });

  it('reads need no token: GET /api/fault-presets', async () => {
    const answer = await request(localConsole.endpoint, 'GET', '/api/fault-presets', {
      host: own.host,
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toHaveProperty('hyperfleet-503');
  });
});
