// The HyperFleet client against the API as it really answers (the strict emulator, JWT and
// tenancy on): only NTF-001 is "cluster gone", an unknown route is a configuration error naming
// the URL, 401/403 name what to configure, our token and tenancy headers go on every call, and
// a proxy's Retry-After on 429/503 is honoured within the retry policy.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DEV_TENANCY,
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import { NoAuth, type AuthHeaderProvider } from '../../../shared/hyperfleet/auth';
import { HyperFleetClient } from '../../../shared/hyperfleet/client';
import type { CallerIdentity } from '../../../shared/hyperfleet/config';
import {
  HyperFleetEndpointError,
  HyperFleetUnauthorizedError,
  HyperFleetUnavailableError,
} from '../../../shared/hyperfleet/errors';
import { readySpec } from '../../helpers/hyperfleet';
import { RecordingLogger } from '../../helpers/recording-logger';

const TOKEN = 'client-test-token';
const bearer: AuthHeaderProvider = { authorization: async () => `Bearer ${TOKEN}` };
const SYSTEM: CallerIdentity = { kind: 'system', header: 'X-HyperFleet-System' };
const TENANT: CallerIdentity = { kind: 'org', header: 'X-HyperFleet-Org', org: 'acme' };

describe('HyperFleet client against the API as it really answers', () => {
  let emulator: HyperFleetApiEmulator;
  const sleeps: number[] = [];

  beforeAll(async () => {
    emulator = await startHyperFleetApiEmulator({
      tokens: { [TOKEN]: 'adapter@example.com' },
      tenancy: DEV_TENANCY,
    });
  });
  afterAll(() => emulator.stop());

  const client = (
    options: {
      baseUrl?: string;
      version?: string;
      auth?: AuthHeaderProvider;
      caller?: CallerIdentity;
      retryAttempts?: number;
    } = {},
  ) =>
    new HyperFleetClient(
      {
        baseUrl: options.baseUrl ?? emulator.baseUrl,
        version: options.version ?? 'v1',
        timeoutMs: 2000,
        retryAttempts: options.retryAttempts ?? 3,
        auth: { kind: 'none' },
        caller: options.caller ?? SYSTEM,
      },
      {
        auth: options.auth ?? bearer,
        logger: new RecordingLogger(),
        sleep: async (ms) => {
          sleeps.push(ms);
        },
      },
    );

  it('sends the token and tenancy headers on every call: a system caller reads and PUTs statuses', async () => {
    const { id } = await client({ caller: TENANT }).createCluster({
      name: 'headers',
      spec: readySpec(),
    });
    const system = client();
    expect((await system.findCluster(id))?.id).toBe(id);
    expect(await system.listStatuses(id)).toEqual([]);
    expect(
      await system.putStatus(id, {
        adapter: 'pullsecret',
        observed_generation: 1,
        observed_time: new Date().toISOString(),
        conditions: ['Available', 'Applied', 'Health'].map((type) => ({
          type,
          status: 'False' as const,
          reason: 'JobRunning',
          message: 'running',
        })),
      }),
    ).toBe('stored');
  });

  it('a missing cluster (NTF-001) is "gone": findCluster answers undefined', async () => {
    expect(await client().findCluster('no-such-cluster')).toBeUndefined();
  });

  it.each([
    ['a wrong API version', 'v2', ''],
    ['a base URL with a path', 'v1', '/hyperfleet'],
  ])(
    '%s: findCluster throws a transient configuration error naming the URL, even without a token',
    async (_name, version, suffix) => {
      const baseUrl = `${emulator.baseUrl}${suffix}`;
      const error = await client({ baseUrl, version, auth: new NoAuth() })
        .findCluster('any')
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HyperFleetEndpointError);
      expect((error as HyperFleetEndpointError).kind).toBe('transient');
      expect((error as Error).message).toContain('404 HYPERFLEET-NTF-000');
      expect((error as Error).message).toContain(
        `${baseUrl}/api/hyperfleet/${version}/clusters/any`,
      );
      expect((error as Error).message).toMatch(/HYPERFLEET_API_BASE_URL .*HYPERFLEET_API_VERSION/);
    },
  );

  it('a 404 that is not the API (no problem body) is a configuration error too, never "cluster gone"', async () => {
    const other = http.createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html>Not Found</html>');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      await expect(client({ baseUrl: url }).findCluster('any')).rejects.toBeInstanceOf(
        HyperFleetEndpointError,
      );
    } finally {
      other.close();
    }
  });

  it('no token: 401 AUT-001, a permanent error naming the token settings', async () => {
    const error = await client({ auth: new NoAuth() })
      .findCluster('any')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HyperFleetUnauthorizedError);
    expect((error as Error).message).toMatch(
      /401 HYPERFLEET-AUT-001.*HYPERFLEET_API_AUTH_TOKEN_PATH/,
    );
  });

  it('no tenancy header, or a system caller creating a cluster: 403 AUZ-001 naming the tenancy settings', async () => {
    for (const run of [
      () => client({ caller: { kind: 'none' } }).findCluster('any'),
      () => client().createCluster({ name: 'by-system', spec: readySpec() }),
    ]) {
      const error = await run().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HyperFleetUnauthorizedError);
      expect((error as Error).message).toMatch(
        /403 HYPERFLEET-AUZ-001.*HYPERFLEET_API_SYSTEM_HEADER/,
      );
    }
  });

  describe('behind a proxy that sends Retry-After', () => {
    let proxy: http.Server;
    let proxyUrl: string;
    let answers: { status: number; retryAfter: string }[] = [];
    let forwarded = 0;

    beforeAll(async () => {
      // Answers the queued statuses first, then forwards to the emulator like a gateway.
      proxy = http.createServer((req, res) => {
        const next = answers.shift();
        if (next) {
          res.writeHead(next.status, { 'retry-after': next.retryAfter });
          res.end();
          return;
        }
        forwarded++;
        const upstream = http.request(
          `${emulator.baseUrl}${req.url ?? '/'}`,
          { method: req.method, headers: req.headers },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        req.pipe(upstream);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
    beforeEach(() => {
      sleeps.length = 0;
      forwarded = 0;
    });

    it('waits what 429/503 Retry-After asks (seconds or HTTP-date), then succeeds', async () => {
      answers = [
        { status: 429, retryAfter: '2' },
        { status: 503, retryAfter: new Date(Date.now() + 3_000).toUTCString() },
      ];
      expect(await client({ baseUrl: proxyUrl }).findCluster('no-such-cluster')).toBeUndefined();
      expect(forwarded).toBe(1);
      expect(sleeps[0]).toBe(2000);
      expect(sleeps[1]).toBeGreaterThan(1500);
      expect(sleeps[1]).toBeLessThanOrEqual(3000);
    });

    it('gives up at once when Retry-After is beyond the in-process limit (Pub/Sub redelivers later)', async () => {
      answers = [{ status: 429, retryAfter: '120' }];
      const error = await client({ baseUrl: proxyUrl })
        .findCluster('no-such-cluster')
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HyperFleetUnavailableError);
      expect(sleeps).toEqual([]);
      expect(forwarded).toBe(0);
    });
  });
});
