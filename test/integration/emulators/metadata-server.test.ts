import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EMULATORS } from '../../../emulators/pullsecret/registry';
import {
  MetadataServerOptionsError,
  startMetadataServer,
  type MetadataServerEmulator,
} from '../../../emulators/metadata-server/server';
import { ROOT, runNode } from '../../helpers/run-process';

const SA = 'pullsecret-job@demo-hyperfleet.iam.gserviceaccount.com';
const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';
const EMAIL = 'https://www.googleapis.com/auth/userinfo.email';
const BASE = '/computeMetadata/v1';
const STEPS = path.join(ROOT, 'test/fixtures/metadata/google-auth-steps.cjs');
const FLAVOR = { 'Metadata-Flavor': 'Google' };

let server: MetadataServerEmulator;
let home: string;
beforeEach(async () => {
  server = await startMetadataServer({ serviceAccount: SA, region: 'europe-west1' });
});
afterEach(() => server.stop());
beforeAll(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'metadata-home-'));
});
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

type Step = Record<string, unknown> & { do: string };

/**
 * Runs the steps in a fresh Node process as a Cloud Run job would: GCE_METADATA_HOST here,
 * CLOUD_RUN_JOB set, METADATA_SERVER_DETECTION unset, no credentials file, no gcloud on PATH.
 */
async function inJob(steps: Step[]): Promise<unknown[]> {
  const result = await runNode(STEPS, [JSON.stringify(steps)], {
    GCE_METADATA_HOST: server.host,
    CLOUD_RUN_JOB: 'pullsecret-job',
    METADATA_SERVER_DETECTION: undefined,
    METADATA_ADMIN: server.endpoint,
    TOKENINFO_URL: server.tokenInfoUrl,
    HOME: home,
    CLOUDSDK_CONFIG: home,
    PATH: path.dirname(process.execPath),
  });
  if (result.code !== 0) throw new Error(`steps failed (${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout) as unknown[];
}

const tokenOf = (result: unknown) => (result as { token: string }).token;

async function tokenInfo(token: string) {
  const res = await fetch(`${server.tokenInfoUrl}?access_token=${encodeURIComponent(token)}`);
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

async function get(pathname: string, headers: Record<string, string> = FLAVOR) {
  const res = await fetch(`${server.endpoint}${pathname}`, { headers, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe("google-auth-library's real Cloud Run path", () => {
  test('GoogleAuth gets tokens with the scopes it asks for; token info names the account only with userinfo.email', async () => {
    const [first, again, email, projectId, cloudOnly, ping8, ping6, viaLibrary] = await inJob([
      { do: 'token', client: 'both', scopes: [CLOUD_PLATFORM, EMAIL] },
      { do: 'token', client: 'both', scopes: [CLOUD_PLATFORM, EMAIL] },
      { do: 'email', client: 'both' },
      { do: 'projectId', client: 'both' },
      { do: 'token', client: 'cloud', scopes: [CLOUD_PLATFORM] },
      { do: 'isAvailable', copy: 'gal' },
      { do: 'isAvailable', copy: 'top' },
      { do: 'tokenInfo', of: 0 },
    ]);
    expect(first).toEqual({ token: expect.stringMatching(/^ya29\./), type: 'Compute' });
    expect(again).toEqual(first); // cached by google-auth-library: 3599 s left
    expect(email).toBe(SA);
    expect(projectId).toBe('demo-hyperfleet');
    expect(tokenOf(cloudOnly)).not.toBe(tokenOf(first));
    expect([ping8, ping6]).toEqual([true, true]);

    const both = await tokenInfo(tokenOf(first));
    expect(both.status).toBe(200);
    expect(both.body).toEqual({
      azp: server.uniqueId,
      aud: server.uniqueId,
      sub: server.uniqueId,
      scope: `${CLOUD_PLATFORM} ${EMAIL}`,
      exp: expect.stringMatching(/^\d{10}$/),
      expires_in: expect.stringMatching(/^\d+$/),
      email: SA,
      email_verified: 'true',
      access_type: 'online',
    });
    expect(Number(both.body.expires_in)).toBeGreaterThan(3500);
    const cloud = await tokenInfo(tokenOf(cloudOnly));
    expect(cloud.body).toEqual({
      azp: server.uniqueId,
      aud: server.uniqueId,
      scope: CLOUD_PLATFORM,
      exp: expect.any(String),
      expires_in: expect.any(String),
      access_type: 'online',
    });
    expect(server.lookup(tokenOf(cloudOnly))).toMatchObject({
      email: SA,
      scopes: [CLOUD_PLATFORM],
    });

    // google-auth-library's own token-info call (POST, token as a bearer header) reads it too.
    expect(viaLibrary).toMatchObject({ email: SA, scopes: [CLOUD_PLATFORM, EMAIL] });

    const seen = server.requests.list().map((r) => `${r.target} ${r.outcome}`);
    expect(seen).toEqual(
      expect.arrayContaining([
        `${BASE}/instance 301`, // gcp-metadata's isAvailable() ping, redirected to the directory
        `${BASE}/instance/ 200`,
        `${BASE}/instance/service-accounts/default/token 200`,
        `${BASE}/instance/service-accounts/default/email 200`,
        `${BASE}/project/project-id 200`,
      ]),
    );
  });

  test('expire-all: the server issues a new token; a client keeps its cached one until its own expiry', async () => {
    const scopes = [CLOUD_PLATFORM, EMAIL];
    const [a1, b1, expired, a2, c1] = await inJob([
      { do: 'token', client: 'a', scopes },
      { do: 'token', client: 'b', scopes }, // another process-wide client: the server's cache
      { do: 'admin', method: 'POST', path: '/_emulator/tokens/expire' },
      { do: 'token', client: 'a', scopes },
      { do: 'token', client: 'c', scopes },
    ]);
    expect(tokenOf(b1)).toBe(tokenOf(a1));
    expect(expired).toEqual({ status: 200, body: { expired: 1 } });
    // google-auth-library trusts the expires_in it was given: it does not ask again ...
    expect(tokenOf(a2)).toBe(tokenOf(a1));
    // ... but whoever asks next gets a new token, and the old one is refused.
    expect(tokenOf(c1)).not.toBe(tokenOf(a1));
    expect((await tokenInfo(tokenOf(a1))).status).toBe(400);
    expect((await tokenInfo(tokenOf(c1))).body.email).toBe(SA);
  });

  test('a lifetime under 5 minutes makes google-auth-library fetch a new token for each use', async () => {
    const scopes = [CLOUD_PLATFORM];
    const [lifetime, first, second] = await inJob([
      { do: 'admin', method: 'PUT', path: '/_emulator/token-lifetime', body: { lifetime: '60s' } },
      { do: 'token', client: 'a', scopes },
      { do: 'token', client: 'a', scopes },
    ]);
    expect(lifetime).toEqual({ status: 200, body: { lifetimeSeconds: 60 } });
    expect(tokenOf(second)).not.toBe(tokenOf(first));
    for (const token of [tokenOf(first), tokenOf(second)]) {
      const info = await tokenInfo(token);
      expect(info.status).toBe(200);
      expect(Number(info.body.expires_in)).toBeLessThanOrEqual(60);
    }
  });
});

describe('metadata server rules', () => {
  test.each([
    ['no Metadata-Flavor', {}, 'Missing Metadata-Flavor:Google header.'],
    ['a wrong Metadata-Flavor', { 'Metadata-Flavor': 'google' }, 'Missing Metadata-Flavor'],
    ['X-Forwarded-For', { ...FLAVOR, 'X-Forwarded-For': '10.0.0.1' }, 'does not have permission'],
  ])(
    '403 for a request with %s, with the Metadata-Flavor answer header',
    async (_, headers, wording) => {
      const res = await get(`${BASE}/project/project-id`, headers);
      expect(res.status).toBe(403);
      expect(res.text).toContain(wording);
      expect(res.text).not.toContain('demo-hyperfleet');
      expect(res.headers.get('metadata-flavor')).toBe('Google');
      expect(res.headers.get('content-type')).toBe('text/html; charset=UTF-8');
    },
  );

  test('404 for unknown paths and values asked for as directories; 405 for other methods', async () => {
    for (const pathname of [
      `${BASE}/instance/attributes/`,
      '/other',
      `${BASE}/project/project-id/`,
    ]) {
      const res = await get(pathname);
      expect(res.status).toBe(404);
      expect(res.text).toContain('was not found on this server');
      expect(res.headers.get('metadata-flavor')).toBe('Google');
    }
    const unknownAccount = await get(
      `${BASE}/instance/service-accounts/other@x.iam.gserviceaccount.com/token`,
    );
    expect(unknownAccount.status).toBe(404);
    const post = await fetch(`${server.endpoint}${BASE}/instance/`, {
      method: 'POST',
      headers: FLAVOR,
    });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });

  test('values, listings, recursive JSON and the directory redirect of a Cloud Run instance', async () => {
    const redirect = await get(`${BASE}/instance?alt=text`);
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe(`${BASE}/instance/?alt=text`);
    const info = server.info() as { projectNumber: string };
    expect(info.projectNumber).toMatch(/^\d{12}$/);
    const values = {
      'project/project-id': 'demo-hyperfleet',
      'project/numeric-project-id': info.projectNumber,
      'instance/region': `projects/${info.projectNumber}/regions/europe-west1`,
      'instance/zone': `projects/${info.projectNumber}/zones/europe-west1-1`,
      'instance/service-accounts/default/email': SA,
      [`instance/service-accounts/${SA}/email`]: SA,
      'instance/service-accounts/default/aliases': 'default',
    };
    for (const [key, value] of Object.entries(values)) {
      const res = await get(`${BASE}/${key}`);
      expect({ key, status: res.status, text: res.text }).toEqual({
        key,
        status: 200,
        text: value,
      });
      expect(res.headers.get('metadata-flavor')).toBe('Google');
    }
    expect((await get(`${BASE}/instance/`)).text).toBe('id\nregion\nservice-accounts/\nzone\n');
    expect((await get(`${BASE}/instance/service-accounts/`)).text).toBe(`default/\n${SA}/\n`);
    const account = await get(`${BASE}/instance/service-accounts/default/?recursive=true`);
    expect(account.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(account.text)).toEqual({
      aliases: ['default'],
      email: SA,
      scopes: [CLOUD_PLATFORM],
    });
    expect(JSON.parse((await get(`${BASE}/project/?recursive=true`)).text)).toEqual({
      numericProjectId: Number(info.projectNumber),
      projectId: 'demo-hyperfleet',
    });
    expect((await get(`${BASE}/project/?recursive=maybe`)).status).toBe(400);
  });

  test('a token without scopes gets cloud-platform; by default or by email, the same cached token', async () => {
    const byDefault = await get(`${BASE}/instance/service-accounts/default/token`);
    expect(byDefault.headers.get('content-type')).toBe('application/json');
    const body = JSON.parse(byDefault.text) as Record<string, unknown>;
    expect(body).toEqual({
      access_token: expect.stringMatching(/^ya29\.c\.[A-Za-z0-9_-]{80,}$/),
      expires_in: 3599,
      token_type: 'Bearer',
    });
    const token = body.access_token as string;
    expect(server.lookup(token)).toMatchObject({
      scopes: [CLOUD_PLATFORM],
      uniqueId: server.uniqueId,
    });
    const byEmail = JSON.parse(
      (await get(`${BASE}/instance/service-accounts/${SA}/token`)).text,
    ) as {
      access_token: string;
    };
    expect(byEmail.access_token).toBe(token);
    const scoped = await get(
      `${BASE}/instance/service-accounts/default/token?scopes=${EMAIL},${CLOUD_PLATFORM}`,
    );
    expect(
      server.lookup((JSON.parse(scoped.text) as { access_token: string }).access_token)?.scopes,
    ).toEqual([EMAIL, CLOUD_PLATFORM]);
    expect((await get(`${BASE}/instance/service-accounts/default/token?scopes=a%20b`)).status).toBe(
      400,
    );
  });

  test('expires_in counts down; a token with 5 minutes left is replaced; an expired one is refused', async () => {
    let now = Date.UTC(2030, 0, 1);
    const clocked = await startMetadataServer({ serviceAccount: SA, now: () => now });
    try {
      const token = async () => {
        const res = await fetch(
          `${clocked.endpoint}${BASE}/instance/service-accounts/default/token`,
          {
            headers: FLAVOR,
          },
        );
        return (await res.json()) as { access_token: string; expires_in: number };
      };
      const info = async (t: string) =>
        (await fetch(`${clocked.tokenInfoUrl}?access_token=${t}`)).json() as Promise<
          Record<string, string>
        >;
      const first = await token();
      now += 1000_000;
      const later = await token();
      expect(later).toEqual({ ...first, expires_in: 2599 });
      expect(await info(first.access_token)).toMatchObject({
        expires_in: '2599',
        exp: String(Date.UTC(2030, 0, 1) / 1000 + 3599),
      });
      now += 2300_000; // 299 s left
      const replaced = await token();
      expect(replaced.access_token).not.toBe(first.access_token);
      expect(replaced.expires_in).toBe(3599);
      now += 300_000;
      expect(await info(first.access_token)).toEqual({
        error: 'invalid_token',
        error_description: 'Invalid Value',
      });
      expect(clocked.lookup(first.access_token)).toBeUndefined();
    } finally {
      await clocked.stop();
    }
  });

  test('an injected fault answers with its status and the Metadata-Flavor header', async () => {
    server.faults.add({
      match: `GET ${BASE}/instance/service-accounts/default/token`,
      status: 503,
    });
    const res = await get(`${BASE}/instance/service-accounts/default/token`);
    expect(res.status).toBe(503);
    expect(res.headers.get('metadata-flavor')).toBe('Google');
    expect((await get(`${BASE}/instance/service-accounts/default/token`)).status).toBe(200);
  });
});

describe('token info', () => {
  const issue = async (scopes = `${CLOUD_PLATFORM},${EMAIL}`) => {
    const res = await get(`${BASE}/instance/service-accounts/default/token?scopes=${scopes}`);
    return (JSON.parse(res.text) as { access_token: string }).access_token;
  };

  test('takes the token from the query, a form body or a bearer header, without Metadata-Flavor', async () => {
    const token = await issue();
    const answers = [
      await fetch(`${server.tokenInfoUrl}?access_token=${token}`),
      await fetch(server.tokenInfoUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ access_token: token }).toString(),
      }),
      await fetch(server.tokenInfoUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(((await res.json()) as Record<string, string>).email).toBe(SA);
    }
  });

  test.each([
    ['no token', '', 'Either access_token, id_token, or token_handle required'],
    ['an unknown token', '?access_token=ya29.c.unknown', 'Invalid Value'],
    ['an id_token (none issued here)', '?id_token=eyJhbGciOi', 'Invalid Value'],
  ])('400 invalid_token for %s', async (_, query, description) => {
    const res = await fetch(`${server.tokenInfoUrl}${query}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_token', error_description: description });
  });

  test('no token value reaches the request log', async () => {
    const token = await issue();
    await tokenInfo(token);
    expect(JSON.stringify(server.requests.list())).not.toContain(token);
  });
});

describe('admin', () => {
  test('lists tokens without their values, expires them, sets the lifetime', async () => {
    const token = await (async () => {
      const res = await get(
        `${BASE}/instance/service-accounts/default/token?scopes=${CLOUD_PLATFORM}`,
      );
      return (JSON.parse(res.text) as { access_token: string }).access_token;
    })();
    const listing = await (await fetch(`${server.endpoint}/_emulator/tokens`)).text();
    expect(listing).not.toContain(token);
    expect(listing).not.toContain(token.slice(7, 30));
    expect(JSON.parse(listing)).toEqual({
      lifetimeSeconds: 3599,
      tokens: [
        {
          id: createHash('sha256').update(token).digest('hex').slice(0, 12),
          email: SA,
          uniqueId: expect.stringMatching(/^\d{21}$/),
          scopes: [CLOUD_PLATFORM],
          issuedAt: expect.any(String),
          expiresAt: expect.any(String),
          expired: false,
        },
      ],
    });

    const put = (lifetime: unknown) =>
      fetch(`${server.endpoint}/_emulator/token-lifetime`, {
        method: 'PUT',
        body: JSON.stringify({ lifetime }),
      });
    for (const bad of ['soon', '500ms', '13h', 60]) expect((await put(bad)).status).toBe(400);
    expect(await (await put('2m')).json()).toEqual({ lifetimeSeconds: 120 });
    const expire = await fetch(`${server.endpoint}/_emulator/tokens/expire`, { method: 'POST' });
    expect(await expire.json()).toEqual({ expired: 1 });
    const next = JSON.parse(
      (await get(`${BASE}/instance/service-accounts/default/token`)).text,
    ) as {
      access_token: string;
      expires_in: number;
    };
    expect(next.access_token).not.toBe(token);
    expect(next.expires_in).toBe(120);
    expect(await (await fetch(`${server.endpoint}/_emulator/health`)).json()).toEqual({ ok: true });
  });
});

describe('options and the registry', () => {
  test('the unique id is a stable 21-digit number; the project comes from the email', async () => {
    const again = await startMetadataServer({ serviceAccount: SA });
    try {
      expect(again.uniqueId).toBe(server.uniqueId);
      expect(server.uniqueId).toMatch(/^[1-9]\d{20}$/);
    } finally {
      await again.stop();
    }
    await expect(startMetadataServer({ serviceAccount: 'not-an-email' })).rejects.toThrow(
      MetadataServerOptionsError,
    );
    await expect(
      startMetadataServer({ serviceAccount: SA, tokenLifetimeSeconds: 0.5 }),
    ).rejects.toThrow(/whole number of seconds/);
  });

  test('`metadata-server` without --service-account says so', () => {
    const args = { host: '127.0.0.1', port: 0, adminPort: 0, rest: [], options: {} };
    expect(() => EMULATORS['metadata-server']!(args)).toThrow(/--service-account EMAIL/);
  });

  test('`metadata-server` starts from command-line options; its ready line has GCE_METADATA_HOST', async () => {
    const started = await EMULATORS['metadata-server']!({
      host: '127.0.0.1',
      port: 0,
      adminPort: 0,
      rest: [],
      options: {
        'service-account': SA,
        'unique-id': '123456789012345678901',
        'project-number': '123456789012',
        region: 'us-east4',
        'token-lifetime': '330s',
      },
    });
    try {
      const info = started.info() as Record<string, unknown> & { env: Record<string, string> };
      expect(info).toMatchObject({
        name: 'metadata-server',
        uniqueId: '123456789012345678901',
        projectId: 'demo-hyperfleet',
        projectNumber: '123456789012',
        region: 'us-east4',
        tokenLifetimeSeconds: 330,
      });
      expect(`http://${info.env.GCE_METADATA_HOST}`).toBe(started.endpoint);
    } finally {
      await started.stop();
    }
  });
});

describe('one identity per component', () => {
  test("each account has its own listener; one token info knows every account's tokens", async () => {
    const main = 'pullsecret-job@demo-hyperfleet.iam.gserviceaccount.com';
    const adapter = 'pullsecret-adapter@demo-hyperfleet.iam.gserviceaccount.com';
    const many = await startMetadataServer({ serviceAccount: main, additionalAccounts: [adapter] });
    try {
      expect(many.accounts.map((a) => a.email)).toEqual([main, adapter]);
      const [jobHost, adapterHost] = many.accounts.map((a) => a.host);
      expect(jobHost).toBe(many.host);
      expect(adapterHost).not.toBe(jobHost);
      const tokenOf = async (host: string) => {
        const res = await fetch(
          `http://${host}/computeMetadata/v1/instance/service-accounts/default/token?scopes=${CLOUD_PLATFORM},${EMAIL}`,
          { headers: { 'Metadata-Flavor': 'Google' } },
        );
        return ((await res.json()) as { access_token: string }).access_token;
      };
      const emailOf = async (host: string) => {
        const res = await fetch(
          `http://${host}/computeMetadata/v1/instance/service-accounts/default/email`,
          { headers: { 'Metadata-Flavor': 'Google' } },
        );
        return res.text();
      };
      expect(await emailOf(adapterHost!)).toBe(adapter);
      const info = await fetch(`${many.tokenInfoUrl}?access_token=${await tokenOf(adapterHost!)}`);
      expect(((await info.json()) as { email: string }).email).toBe(adapter);
      const jobInfo = await fetch(`${many.tokenInfoUrl}?access_token=${await tokenOf(jobHost!)}`);
      expect(((await jobInfo.json()) as { email: string }).email).toBe(main);
    } finally {
      await many.stop();
    }
  });
});
