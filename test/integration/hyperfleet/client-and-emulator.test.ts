import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import { TokenFileAuth } from '../../../shared/hyperfleet/auth';
import type { HyperFleetClient } from '../../../shared/hyperfleet/client';
import {
  HyperFleetInvalidRequestError,
  HyperFleetNotFoundError,
  HyperFleetUnauthorizedError,
  HyperFleetUnavailableError,
} from '../../../shared/hyperfleet/errors';
import { buildStatus } from '../../../shared/status/status-builder';
import type { AdapterStatusRequest } from '../../../shared/hyperfleet/schemas';
import { hyperFleetClient, readySpec } from '../../helpers/hyperfleet';
import { RecordingLogger } from '../../helpers/recording-logger';
import { waitFor } from '../../helpers/wait-for';

const conditions = (
  available: 'True' | 'False' | 'Unknown' = 'True',
  extra: { type: string; status: string; reason: string; message: string }[] = [],
) => [
  { type: 'Available', status: available, reason: 'R', message: 'm' },
  { type: 'Applied', status: 'True', reason: 'R', message: 'm' },
  { type: 'Health', status: 'True', reason: 'R', message: 'm' },
  ...extra,
];
const report = (
  adapter: string,
  generation: number,
  at: Date,
  available: 'True' | 'False' | 'Unknown' = 'True',
  extra: { type: string; status: string; reason: string; message: string }[] = [],
): AdapterStatusRequest => ({
  adapter,
  observed_generation: generation,
  observed_time: at.toISOString(),
  conditions: conditions(available, extra) as AdapterStatusRequest['conditions'],
});
const seconds = (n: number) => new Date(Date.now() + n * 1000);

async function rawPut(emulator: HyperFleetApiEmulator, id: string, body: unknown) {
  const response = await fetch(`${emulator.baseUrl}/api/hyperfleet/v1/clusters/${id}/statuses`, {
    method: 'PUT',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body:
      response.status === 204 ? undefined : ((await response.json()) as Record<string, unknown>),
  };
}

describe('HyperFleet client against the HyperFleet API emulator', () => {
  let emulator: HyperFleetApiEmulator;
  let client: HyperFleetClient;
  let logger: RecordingLogger;

  beforeEach(async () => {
    emulator = await startHyperFleetApiEmulator();
    logger = new RecordingLogger();
    client = hyperFleetClient(emulator, { logger });
  });
  afterEach(() => emulator.stop());

  it('creates clusters at generation 1 with Reconciled and LastKnownReconciled, gets, lists, searches and pages', async () => {
    const a = await client.createCluster({
      name: 'alpha',
      spec: readySpec(),
      labels: { env: 'prod' },
    });
    await client.createCluster({ name: 'beta', spec: {}, labels: { env: 'dev' } });
    expect(a.generation).toBe(1);
    expect(a.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a.status?.conditions.map((c) => c.type)).toEqual(['Reconciled', 'LastKnownReconciled']);
    expect((await client.getCluster(a.id)).name).toBe('alpha');
    expect(
      (await client.listClusters({ search: "labels.env='prod'" })).items.map((c) => c.name),
    ).toEqual(['alpha']);
    expect(
      (await client.listClusters({ search: "status.conditions.Reconciled='False'" })).total,
    ).toBe(2);
    expect(
      (await client.listClusters({ search: "name in ('beta','gamma')" })).items.map((c) => c.name),
    ).toEqual(['beta']);
    const page2 = await client.listClusters({ page: 2, size: 1 });
    expect(page2).toMatchObject({ page: 2, size: 1, total: 2 });
    expect((await client.listAllClusters()).length).toBe(2);
    await expect(client.createCluster({ name: 'alpha', spec: {} })).rejects.toBeInstanceOf(
      HyperFleetInvalidRequestError,
    );
    await expect(client.createCluster({ name: 'X', spec: {} })).rejects.toThrow(
      /400 HYPERFLEET-VAL-000/,
    );
  });

  it('bumps the generation on spec or labels PATCH, not on a no-op, and refuses bad patches', async () => {
    const c = await client.createCluster({ name: 'gamma', spec: readySpec() });
    expect(
      (await client.patchCluster(c.id, { spec: { pullSecret: { data: '{}' } } })).generation,
    ).toBe(2);
    expect((await client.patchCluster(c.id, { labels: { team: 'x' } })).generation).toBe(3);
    expect((await client.patchCluster(c.id, { labels: { team: 'x' } })).generation).toBe(3);
    const patched = await client.getCluster(c.id);
    expect((patched.spec.platform as { type: string }).type).toBe('gcp');
    await expect(client.patchCluster(c.id, {} as never)).rejects.toBeInstanceOf(
      HyperFleetInvalidRequestError,
    );
  });

  it('stores a valid report (201) and answers every 400 rule as problem+json', async () => {
    const c = await client.createCluster({ name: 'statuses', spec: {} });
    expect(await client.putStatus(c.id, report('pullsecret', 1, new Date()))).toBe('stored');
    const missing = await rawPut(emulator, c.id, {
      ...report('x', 1, new Date()),
      conditions: conditions().slice(1),
    });
    expect(missing).toMatchObject({
      status: 400,
      type: 'application/problem+json',
      body: { code: 'HYPERFLEET-VAL-000', status: 400 },
    });
    // The API's words (hyperfleet-api pkg/services/adapter_status_validation.go).
    expect(String(missing.body?.detail)).toContain("missing mandatory condition 'Available'");
    const cases: [string, unknown][] = [
      ['observed_generation 0', { ...report('x', 1, new Date()), observed_generation: 0 }],
      [
        'observed_generation missing',
        { ...report('x', 1, new Date()), observed_generation: undefined },
      ],
      ['observed_time 31 min ago', report('x', 1, seconds(-31 * 60))],
      ['observed_time 6 min ahead', report('x', 1, seconds(6 * 60))],
      ['observed_time not RFC 3339', { ...report('x', 1, new Date()), observed_time: 'yesterday' }],
      [
        'status Maybe',
        {
          ...report('x', 1, new Date()),
          conditions: [...conditions().slice(1), { type: 'Available', status: 'Maybe' }],
        },
      ],
      [
        'Health missing',
        {
          ...report('x', 1, new Date()),
          conditions: conditions().filter((k) => k.type !== 'Health'),
        },
      ],
      [
        'last_transition_time sent',
        {
          ...report('x', 1, new Date()),
          conditions: conditions().map((k) => ({
            ...k,
            last_transition_time: new Date().toISOString(),
          })),
        },
      ],
      [
        'duplicate condition',
        { ...report('x', 1, new Date()), conditions: [...conditions(), conditions()[0]] },
      ],
      ['adapter missing', { ...report('x', 1, new Date()), adapter: undefined }],
    ];
    for (const [name, body] of cases) {
      const answer = await rawPut(emulator, c.id, body);
      expect({ name, status: answer.status }).toEqual({ name, status: 400 });
    }
    await expect(
      client.putStatus(c.id, { ...report('x', 1, new Date()), observed_generation: 0 }),
    ).rejects.toBeInstanceOf(HyperFleetInvalidRequestError);
    await expect(
      client.putStatus('no-such-cluster', report('x', 1, new Date())),
    ).rejects.toBeInstanceOf(HyperFleetNotFoundError);
    const post = await fetch(`${emulator.baseUrl}/api/hyperfleet/v1/clusters/${c.id}/statuses`, {
      method: 'POST',
      body: '{}',
    });
    expect(post.status).toBe(405);
  });

  it('silently discards (204) stale generations, newer generations, older observed_time and a later Available=Unknown', async () => {
    const c = await client.createCluster({ name: 'discards', spec: {} });
    await client.patchCluster(c.id, { labels: { g: '2' } });
    const t0 = seconds(-60);
    expect(await client.putStatus(c.id, report('pullsecret', 2, t0))).toBe('stored');
    expect(await client.putStatus(c.id, report('pullsecret', 3, seconds(0)))).toBe('discarded'); // newer than the cluster
    expect(await client.putStatus(c.id, report('pullsecret', 1, seconds(0)))).toBe('discarded'); // older than stored
    expect(await client.putStatus(c.id, report('pullsecret', 2, seconds(-120)))).toBe('discarded'); // older observed_time
    expect(await client.putStatus(c.id, report('pullsecret', 2, seconds(0), 'Unknown'))).toBe(
      'discarded',
    ); // Unknown after a first report
    expect(await client.putStatus(c.id, report('fresh', 2, seconds(0), 'Unknown'))).toBe('stored'); // Unknown as a first report is kept
    expect(
      logger.lines.filter((l) => l.message === 'HyperFleet API discarded the status report'),
    ).toHaveLength(4);
    const [own] = (await client.listStatuses(c.id)).filter((s) => s.adapter === 'pullsecret');
    expect(own?.last_report_time).toBe(t0.toISOString());
  });

  it('keeps last_transition_time while a condition status is unchanged', async () => {
    const c = await client.createCluster({ name: 'transitions', spec: {} });
    const t1 = seconds(-30);
    await client.putStatus(c.id, report('pullsecret', 1, t1, 'False'));
    await client.putStatus(c.id, report('pullsecret', 1, seconds(-20), 'False'));
    let available = (await client.listStatuses(c.id))[0]?.conditions.find(
      (k) => k.type === 'Available',
    );
    expect(available?.last_transition_time).toBe(t1.toISOString());
    const t3 = seconds(-10);
    await client.putStatus(c.id, report('pullsecret', 1, t3, 'True'));
    available = (await client.listStatuses(c.id))[0]?.conditions.find(
      (k) => k.type === 'Available',
    );
    expect(available?.last_transition_time).toBe(t3.toISOString());
  });

  it('aggregates Reconciled, LastKnownReconciled and PullsecretSuccessful', async () => {
    const c = await client.createCluster({ name: 'aggregation', spec: {} });
    for (const adapter of ['validation', 'dns', 'hypershift'])
      await client.putStatus(c.id, report(adapter, 1, new Date()));
    let cluster = await client.getCluster(c.id);
    expect(cluster.status?.conditions.find((k) => k.type === 'Reconciled')?.status).toBe('False');
    await client.putStatus(
      c.id,
      buildStatus(
        {
          kind: 'succeeded',
          execution: 'e1',
          provisioned: { secretPath: 'projects/p/secrets/s', secretVersion: '1' },
          timing: { completedAt: new Date().toISOString() },
        },
        1,
        new Date(),
      ),
    );
    cluster = await client.getCluster(c.id);
    const byType = Object.fromEntries((cluster.status?.conditions ?? []).map((k) => [k.type, k]));
    expect(byType.Reconciled).toMatchObject({ status: 'True', observed_generation: 1 });
    expect(byType.LastKnownReconciled).toMatchObject({ status: 'True', observed_generation: 1 });
    expect(byType.PullsecretSuccessful).toMatchObject({
      status: 'True',
      reason: 'PullSecretProvisioned',
      observed_generation: 1,
    });
    expect(byType.ValidationSuccessful?.status).toBe('True');

    await client.patchCluster(c.id, { labels: { next: 'gen' } });
    cluster = await client.getCluster(c.id);
    const next = Object.fromEntries((cluster.status?.conditions ?? []).map((k) => [k.type, k]));
    expect(next.Reconciled).toMatchObject({ status: 'False', observed_generation: 2 });
    expect(next.LastKnownReconciled).toMatchObject({ status: 'True', observed_generation: 1 });
  });

  it('soft-deletes (deleted_time, generation + 1), then hard-deletes once every required adapter is Finalized', async () => {
    const c = await client.createCluster({ name: 'deleting', spec: {} });
    const deleted = await client.deleteCluster(c.id);
    expect(deleted.generation).toBe(2);
    expect(deleted.deleted_time).toBeTruthy();
    const finalized = [
      { type: 'Finalized', status: 'True', reason: 'CleanupConfirmed', message: 'done' },
    ];
    for (const adapter of ['validation', 'dns', 'hypershift'])
      await client.putStatus(c.id, report(adapter, 2, new Date(), 'False', finalized));
    expect((await client.getCluster(c.id)).deleted_time).toBeTruthy();
    await client.putStatus(
      c.id,
      buildStatus(
        {
          kind: 'finalized',
          execution: 'e2',
          message: 'Pull secret removed',
          timing: { completedAt: new Date().toISOString() },
        },
        2,
        new Date(),
      ),
    );
    await expect(client.getCluster(c.id)).rejects.toBeInstanceOf(HyperFleetNotFoundError);
    expect(await client.findCluster(c.id)).toBeUndefined();
    await expect(client.patchCluster(c.id, { labels: { a: 'b' } })).rejects.toBeInstanceOf(
      HyperFleetNotFoundError,
    );
  });

  it('names its caller in User-Agent: the emulator logs it, and a fault aimed at another caller is not taken', async () => {
    const c = await client.createCluster({ name: 'named-caller', spec: {} });
    const adapter = hyperFleetClient(emulator, { userAgent: 'pullsecret-adapter' });
    const job = hyperFleetClient(emulator, { userAgent: 'pullsecret-job' });
    const path = `/api/hyperfleet/v1/clusters/${c.id}`;
    emulator.faults.add({ match: `GET ${path}`, client: 'pullsecret-adapter', status: 503 });
    expect((await job.getCluster(c.id)).id).toBe(c.id);
    expect(emulator.faults.pending()).toBe(1);
    expect((await adapter.getCluster(c.id)).id).toBe(c.id);
    expect(emulator.faults.pending()).toBe(0);
    expect(
      emulator.requests
        .list()
        .filter((r) => r.target === path)
        .map((r) => `${r.client} ${r.outcome}`),
    ).toEqual(['pullsecret-job 200', 'pullsecret-adapter 503', 'pullsecret-adapter 200']);
    expect(emulator.faults.taken().filter((f) => f.key === `GET ${path}`)).toEqual([
      expect.objectContaining({ client: 'pullsecret-adapter', status: 503 }),
    ]);
  });

  it('retries injected 503s with backoff, and gives up with a transient error', async () => {
    const c = await client.createCluster({ name: 'flaky', spec: {} });
    emulator.faults.add({
      match: `GET /api/hyperfleet/v1/clusters/${c.id}`,
      count: 2,
      status: 503,
    });
    expect((await client.getCluster(c.id)).id).toBe(c.id);
    expect(
      logger.lines.filter((l) => l.message === 'HyperFleet API call failed, retrying'),
    ).toHaveLength(2);
    emulator.faults.add({
      match: `PUT /api/hyperfleet/v1/clusters/${c.id}/statuses`,
      count: 3,
      status: 503,
    });
    await expect(
      client.putStatus(c.id, report('pullsecret', 1, new Date())),
    ).rejects.toBeInstanceOf(HyperFleetUnavailableError);
    emulator.faults.add({
      match: `GET /api/hyperfleet/v1/clusters/${c.id}`,
      count: 5,
      status: 400,
    });
    await expect(client.getCluster(c.id)).rejects.toBeInstanceOf(HyperFleetInvalidRequestError);
    expect(emulator.faults.pending()).toBe(4); // a 400 is never retried
  });

  it('times out a slow answer and retries it', async () => {
    const c = await client.createCluster({ name: 'slow', spec: {} });
    const read = `GET /api/hyperfleet/v1/clusters/${c.id}`;
    // The emulator runs in this process: on a loaded machine an answer can take a few hundred ms,
    // so the timeout is generous. A held answer is held past it; both are timers of this process,
    // and the client's, started first and shorter, always ends the attempt first.
    const timeoutMs = 2000;
    const held = { match: read, exact: true, delayMs: timeoutMs + 500 };
    const fast = hyperFleetClient(emulator, { timeoutMs, retryAttempts: 2 });
    emulator.faults.add(held);
    expect((await fast.getCluster(c.id)).id).toBe(c.id);
    emulator.faults.add({ ...held, count: 2 });
    await expect(fast.getCluster(c.id)).rejects.toThrow(/no response: TimeoutError/);
    expect(emulator.faults.taken().filter((f) => f.key === read)).toHaveLength(3);
    // The held answers go out to closed connections: four reads in all once they have.
    await waitFor(
      'the held answers',
      () => emulator.requests.list().filter((r) => `${r.method} ${r.target}` === read).length === 4,
    );
  }, 30_000);

  it('treats an unreachable API as transient', async () => {
    const port = Number(new URL(emulator.baseUrl).port);
    await emulator.stop();
    const dead = hyperFleetClient(
      { ...emulator, baseUrl: `http://127.0.0.1:${port}` } as HyperFleetApiEmulator,
      { retryAttempts: 2 },
    );
    await expect(dead.getCluster('x')).rejects.toBeInstanceOf(HyperFleetUnavailableError);
    emulator = await startHyperFleetApiEmulator();
  });
});

describe('HyperFleet API authentication', () => {
  it('answers 401 to a wrong token; a rotated token is re-read on the 401 and the call sent once more', async () => {
    // The API's token table, mutable: rotating a token revokes the old one.
    const tokens: Record<string, string> = {
      'token-one': 'adapter-one',
      'token-two': 'adapter-two',
    };
    const emulator = await startHyperFleetApiEmulator({ tokens });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hf-token-'));
    const tokenFile = path.join(dir, 'token');
    fs.writeFileSync(tokenFile, 'wrong-token\n');
    const client = hyperFleetClient(emulator, { auth: new TokenFileAuth(tokenFile) });
    // Refused, re-read (still wrong), refused again: permanent.
    await expect(client.listClusters()).rejects.toBeInstanceOf(HyperFleetUnauthorizedError);
    fs.writeFileSync(tokenFile, 'token-one\n');
    await client.listClusters(); // the cached wrong token is refused, the file re-read
    // Rotated in place as a secret volume may present it: same length, same mtime; the old token
    // is revoked, so only the 401 tells.
    const { atime, mtime } = fs.statSync(tokenFile);
    fs.writeFileSync(tokenFile, 'token-two\n');
    fs.utimesSync(tokenFile, atime, mtime);
    delete tokens['token-one'];
    await client.createCluster({ name: 'by-two', spec: {} }); // a POST is re-sent after a 401 too
    const created = (await client.listClusters()).items[0];
    expect(created?.created_by).toBe('adapter-two');
    expect(emulator.requests.list().map((r) => r.outcome)).toEqual([
      401, 401, 401, 200, 401, 201, 200,
    ]);
    fs.rmSync(dir, { recursive: true });
    await emulator.stop();
  });
});
