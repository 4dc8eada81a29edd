import { status } from '@grpc/grpc-js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { derivedProjectNumber } from '../../../emulators/common/derived-number';
import { crc32c } from '../../../shared/gcp/crc32c';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { secretManagerClient } from '../../helpers/secret-manager';

const PROJECT = 'projects/demo-project';
/** How the service answers names in PROJECT: with its number (project-numbers.test.ts). */
const ANSWERED = `projects/${derivedProjectNumber('demo-project')}`;

async function codeOf(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return (error as { code?: number }).code;
  }
}

describe('Secret Manager emulator through the real client', () => {
  let emulator: SecretManagerEmulator;
  let client: SecretManagerServiceClient;

  beforeEach(async () => {
    emulator = await startSecretManagerEmulator();
    client = secretManagerClient(emulator.endpoint);
  });
  afterEach(async () => {
    await client.close();
    await emulator.stop();
  });

  const create = (secretId: string, labels: Record<string, string> = {}) =>
    client.createSecret({
      parent: PROJECT,
      secretId,
      secret: { replication: { automatic: {} }, labels },
    });

  it('creates, gets, updates labels, lists with a label filter and deletes secrets', async () => {
    const [secret] = await create('alpha', { 'managed-by': 'hyperfleet', team: 'a' });
    expect(secret.name).toBe(`${ANSWERED}/secrets/alpha`);
    await create('beta', { 'managed-by': 'someone-else' });
    expect(await codeOf(create('alpha'))).toBe(status.ALREADY_EXISTS);

    const [got] = await client.getSecret({ name: secret.name });
    expect(got.labels).toEqual({ 'managed-by': 'hyperfleet', team: 'a' });

    const [updated] = await client.updateSecret({
      secret: { name: secret.name, labels: { 'managed-by': 'hyperfleet', team: 'b' } },
      updateMask: { paths: ['labels'] },
    });
    expect(updated.labels?.team).toBe('b');

    const [owned] = await client.listSecrets({
      parent: PROJECT,
      filter: 'labels.managed-by=hyperfleet',
    });
    expect(owned.map((s) => s.name)).toEqual([secret.name]);
    const [all] = await client.listSecrets({ parent: PROJECT });
    expect(all).toHaveLength(2);

    await client.deleteSecret({ name: secret.name });
    expect(await codeOf(client.getSecret({ name: secret.name }))).toBe(status.NOT_FOUND);
    expect(await codeOf(client.deleteSecret({ name: secret.name }))).toBe(status.NOT_FOUND);
  });

  it('enforces secret id, label and replication rules with INVALID_ARGUMENT', async () => {
    expect(await codeOf(create('bad/id'))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(create('x'.repeat(256)))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(create('ok', { Upper: 'v' }))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(create('ok', { k: 'UPPER' }))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(create('ok', { k: 'v'.repeat(64) }))).toBe(status.INVALID_ARGUMENT);
    const tooMany = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));
    expect(await codeOf(create('ok', tooMany))).toBe(status.INVALID_ARGUMENT);
    expect(
      await codeOf(client.createSecret({ parent: PROJECT, secretId: 'norep', secret: {} })),
    ).toBe(status.INVALID_ARGUMENT);
  });

  it('numbers versions, resolves latest to the most recently created one (any state) and checks checksums', async () => {
    const [secret] = await create('versions');
    const add = (text: string, checksum?: number) =>
      client.addSecretVersion({
        parent: secret.name,
        payload: {
          data: Buffer.from(text),
          ...(checksum !== undefined ? { dataCrc32c: checksum } : {}),
        },
      });
    const [v1] = await add('one', crc32c(Buffer.from('one')));
    const [v2] = await add('two');
    const [v3] = await add('three', crc32c(Buffer.from('three')));
    expect([v1.name, v2.name, v3.name]).toEqual(
      [1, 2, 3].map((n) => `${secret.name}/versions/${n}`),
    );
    expect(v1.clientSpecifiedPayloadChecksum).toBe(true);
    expect(v2.name).toBeTruthy();

    expect(await codeOf(add('four', 12345))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(add('x'.repeat(65_537)))).toBe(status.INVALID_ARGUMENT);

    const latestName = `${secret.name}/versions/latest`;
    const [latest] = await client.accessSecretVersion({ name: latestName });
    expect(latest.name).toBe(v3.name);
    expect(latest.payload?.data?.toString()).toBe('three');
    expect(Number(latest.payload?.dataCrc32c)).toBe(crc32c(Buffer.from('three')));

    // A disabled latest fails with FAILED_PRECONDITION; it does not fall back to version 2.
    await client.disableSecretVersion({ name: v3.name });
    expect(await codeOf(client.accessSecretVersion({ name: v3.name }))).toBe(
      status.FAILED_PRECONDITION,
    );
    expect(await codeOf(client.accessSecretVersion({ name: latestName }))).toBe(
      status.FAILED_PRECONDITION,
    );
    const [latestMeta] = await client.getSecretVersion({ name: latestName });
    expect([latestMeta.name, latestMeta.state]).toEqual([v3.name, 'DISABLED']);
    await client.enableSecretVersion({ name: v3.name });

    // Likewise a destroyed latest.
    await add('x'.repeat(65_536));
    await client.destroySecretVersion({ name: `${secret.name}/versions/4` });
    expect(await codeOf(client.accessSecretVersion({ name: latestName }))).toBe(
      status.FAILED_PRECONDITION,
    );

    await client.destroySecretVersion({ name: v1.name });
    const [destroyed] = await client.getSecretVersion({ name: v1.name });
    expect(destroyed.state).toBe('DESTROYED');
    expect(destroyed.destroyTime).toBeTruthy();
    expect(await codeOf(client.accessSecretVersion({ name: v1.name }))).toBe(
      status.FAILED_PRECONDITION,
    );
    expect(await codeOf(client.enableSecretVersion({ name: v1.name }))).toBe(
      status.FAILED_PRECONDITION,
    );

    const [versions] = await client.listSecretVersions({ parent: secret.name });
    expect(versions.map((v) => [v.name?.split('/').pop(), v.state])).toEqual([
      ['4', 'DESTROYED'],
      ['3', 'ENABLED'],
      ['2', 'ENABLED'],
      ['1', 'DESTROYED'],
    ]);
    const [enabled] = await client.listSecretVersions({
      parent: secret.name,
      filter: 'state:ENABLED',
    });
    expect(enabled).toHaveLength(2);

    expect(await codeOf(client.accessSecretVersion({ name: `${secret.name}/versions/9` }))).toBe(
      status.NOT_FOUND,
    );
    expect(
      await codeOf(
        client.addSecretVersion({
          parent: `${PROJECT}/secrets/missing`,
          payload: { data: Buffer.from('x') },
        }),
      ),
    ).toBe(status.NOT_FOUND);
  });

  it('UpdateSecret honours the etag: a stale one fails with FAILED_PRECONDITION, each update gets a new one', async () => {
    const [secret] = await create('etag');
    const update = (etag: string, annotations: Record<string, string>) =>
      client.updateSecret({
        secret: { name: secret.name, etag, annotations },
        updateMask: { paths: ['annotations'] },
      });
    const [first] = await update(secret.etag!, { owner: 'a' });
    expect(first.etag).toMatch(/^".+"$/);
    expect(first.etag).not.toBe(secret.etag);
    expect(first.annotations).toEqual({ owner: 'a' });

    const stale = update(secret.etag!, { owner: 'b' });
    await expect(stale).rejects.toMatchObject({
      code: status.FAILED_PRECONDITION,
      details: expect.stringContaining('etag') as unknown as string,
    });
    const [unchanged] = await client.getSecret({ name: secret.name });
    expect([unchanged.annotations, unchanged.etag]).toEqual([{ owner: 'a' }, first.etag]);

    // A no-op update still changes the etag; no etag skips the check.
    const [noop] = await update(first.etag!, { owner: 'a' });
    expect(noop.etag).not.toBe(first.etag);
    const [unchecked] = await client.updateSecret({
      secret: { name: secret.name, annotations: { owner: 'c' } },
      updateMask: { paths: ['annotations'] },
    });
    expect(unchecked.annotations).toEqual({ owner: 'c' });
    // Adding a version does not change the secret's etag (versions have their own).
    await client.addSecretVersion({ parent: secret.name, payload: { data: Buffer.from('x') } });
    const [afterAdd] = await client.getSecret({ name: secret.name });
    expect(afterAdd.etag).toBe(unchecked.etag);
    expect(await codeOf(client.deleteSecret({ name: secret.name, etag: noop.etag! }))).toBe(
      status.FAILED_PRECONDITION,
    );
  });

  it('validates label keys and values as the service does (lowercase, international, no dots, 63 chars, 64 labels)', async () => {
    expect(await codeOf(create('intl', { 'clé-é': 'valeur_ü-1', 日本: '日本語' }))).toBeUndefined();
    expect(await codeOf(create('empty-value', { k: '' }))).toBeUndefined();
    const sixtyFour = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`k${i}`, 'v']));
    expect(await codeOf(create('sixty-four', sixtyFour))).toBeUndefined();
    const invalidLabels: Record<string, string>[] = [
      { 'cluster-name': 'prod.example' },
      { 'cluster.name': 'v' },
      { '1key': 'v' },
      { _key: 'v' },
      { k: 'Prod' },
      { ['k'.repeat(64)]: 'v' },
      { k: 'é'.repeat(64) },
    ];
    for (const labels of invalidLabels) {
      const call = create('bad-labels', labels);
      await expect(call).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
      await expect(call).rejects.toThrow(/label/i);
    }
  });

  it('validates annotation keys (no "/") and their total size', async () => {
    const annotated = (secretId: string, annotations: Record<string, string>) =>
      client.createSecret({
        parent: PROJECT,
        secretId,
        secret: { replication: { automatic: {} }, annotations },
      });
    expect(await codeOf(annotated('ok', { 'hyperfleet.io-claimed-by': 'x' }))).toBeUndefined();
    for (const key of ['hyperfleet.io/claimed-by', '-lead', 'trail.', 'k'.repeat(64)]) {
      expect(await codeOf(annotated('bad-key', { [key]: 'x' }))).toBe(status.INVALID_ARGUMENT);
    }
    expect(await codeOf(annotated('too-big', { big: 'x'.repeat(16 * 1024) }))).toBe(
      status.INVALID_ARGUMENT,
    );
  });

  it('requires CMEK keys in global for automatic replication and in the replica location otherwise', async () => {
    const key = (location: string) =>
      `projects/demo-project/locations/${location}/keyRings/r/cryptoKeys/k`;
    const withReplication = (secretId: string, replication: object) =>
      client.createSecret({ parent: PROJECT, secretId, secret: { replication } });
    expect(
      await codeOf(
        withReplication('auto-global', {
          automatic: { customerManagedEncryption: { kmsKeyName: key('global') } },
        }),
      ),
    ).toBeUndefined();
    const regional = withReplication('auto-regional', {
      automatic: { customerManagedEncryption: { kmsKeyName: key('us-east1') } },
    });
    await expect(regional).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    await expect(regional).rejects.toThrow(/must reside in location \[global\]/);
    const replica = (location: string, keyLocation: string) => ({
      location,
      customerManagedEncryption: { kmsKeyName: key(keyLocation) },
    });
    expect(
      await codeOf(
        withReplication('um-ok', {
          userManaged: {
            replicas: [replica('us-east1', 'us-east1'), replica('europe-west1', 'europe-west1')],
          },
        }),
      ),
    ).toBeUndefined();
    expect(
      await codeOf(
        withReplication('um-bad', {
          userManaged: {
            replicas: [replica('us-east1', 'us-east1'), replica('europe-west1', 'global')],
          },
        }),
      ),
    ).toBe(status.INVALID_ARGUMENT);
    // Replicas live in regions, each once; GetSecret answers the replication as created.
    const refused = [
      [{ location: 'us-east1-b' }], // a zone
      [{ location: 'us' }], // a multi-region
      [{ location: 'us-east1/../x' }],
      [{ location: 'us-east1' }, { location: 'us-east1' }],
    ];
    for (const [index, replicas] of refused.entries())
      expect(
        await codeOf(withReplication(`um-refused-${index}`, { userManaged: { replicas } })),
      ).toBe(status.INVALID_ARGUMENT);
    const [kept] = await client.getSecret({ name: `${PROJECT}/secrets/um-ok` });
    expect(kept.replication?.userManaged?.replicas?.map((r) => r.location)).toEqual([
      'us-east1',
      'europe-west1',
    ]);
  });

  it('injects faults by method: next N calls fail with a code, or are delayed', async () => {
    const [secret] = await create('faulty');
    emulator.faults.add({ match: 'GetSecret', count: 2, status: 'UNAVAILABLE' });
    const opts = { retry: null };
    expect(await codeOf(client.getSecret({ name: secret.name }, opts))).toBe(status.UNAVAILABLE);
    expect(await codeOf(client.getSecret({ name: secret.name }, opts))).toBe(status.UNAVAILABLE);
    await expect(client.getSecret({ name: secret.name }, opts)).resolves.toBeTruthy();

    emulator.faults.add({ match: 'GetSecret', delayMs: 300 });
    const started = Date.now();
    await client.getSecret({ name: secret.name }, opts);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);

    const outcomes = emulator.requests
      .list()
      .filter((r) => r.method === 'GetSecret')
      .map((r) => r.outcome);
    expect(outcomes).toEqual(['UNAVAILABLE', 'UNAVAILABLE', 'OK', 'OK']);
  });

  it('serves the admin API for faults and the request log', async () => {
    const response = await fetch(`${emulator.adminUrl}/_emulator/faults`, {
      method: 'POST',
      body: JSON.stringify({ match: 'ListSecrets', status: 'PERMISSION_DENIED' }),
    });
    expect(response.status).toBe(200);
    expect(await codeOf(client.listSecrets({ parent: PROJECT }, { retry: null }))).toBe(
      status.PERMISSION_DENIED,
    );
    const log = (await (await fetch(`${emulator.adminUrl}/_emulator/requests`)).json()) as {
      requests: { method: string; outcome: string }[];
    };
    expect(log.requests).toEqual([
      expect.objectContaining({ method: 'ListSecrets', outcome: 'PERMISSION_DENIED' }),
    ]);
    const bad = await fetch(`${emulator.adminUrl}/_emulator/faults`, {
      method: 'POST',
      body: '{"count": 1}',
    });
    expect(bad.status).toBe(400);
  });
});

describe('Secret Manager emulator persistence', () => {
  it('keeps secrets and versions across restarts with a data directory', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sm-state-'));
    const first = await startSecretManagerEmulator({ dataDir });
    let client = secretManagerClient(first.endpoint);
    const [secret] = await client.createSecret({
      parent: PROJECT,
      secretId: 'durable',
      secret: { replication: { automatic: {} }, labels: { a: 'b' } },
    });
    await client.addSecretVersion({
      parent: secret.name,
      payload: { data: Buffer.from('persisted') },
    });
    await client.close();
    await first.stop();
    expect(fs.statSync(path.join(dataDir, 'state.json')).mode & 0o777).toBe(0o600);

    const second = await startSecretManagerEmulator({ dataDir });
    client = secretManagerClient(second.endpoint);
    const [latest] = await client.accessSecretVersion({ name: `${secret.name}/versions/latest` });
    expect(latest.payload?.data?.toString()).toBe('persisted');
    const [again] = await client.addSecretVersion({
      parent: secret.name,
      payload: { data: Buffer.from('next') },
    });
    expect(again.name).toBe(`${secret.name}/versions/2`);
    await client.close();
    await second.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});

// Secret expiration as Secret Manager documents it (emulators/secret-manager/expiration.ts):
// ttl or expire_time on create and update, expire_time always returned, the secret and every
// version deleted once it passes, 60 s to 100 years away.
describe('Secret Manager emulator: secret expiration (ttl, expire_time)', () => {
  let clock: number;
  let emulator: SecretManagerEmulator;
  let client: SecretManagerServiceClient;
  const HOUR = 3600;

  beforeEach(async () => {
    clock = Date.parse('2030-01-01T00:00:00Z');
    emulator = await startSecretManagerEmulator({ now: () => new Date(clock) });
    client = secretManagerClient(emulator.endpoint);
  });
  afterEach(async () => {
    await client.close();
    await emulator.stop();
  });

  const expiresAt = async (name: string) => {
    const [secret] = await client.getSecret({ name });
    return secret.expireTime ? Number(secret.expireTime.seconds) * 1000 : undefined;
  };

  it('sets expire_time from ttl on create, returns it on every read, and deletes the secret and its versions once it passes', async () => {
    const [secret] = await client.createSecret({
      parent: PROJECT,
      secretId: 'short-lived',
      secret: { replication: { automatic: {} }, ttl: { seconds: 2 * HOUR } },
    });
    expect(Number(secret.expireTime?.seconds) * 1000).toBe(clock + 2 * HOUR * 1000);
    expect(secret.ttl).toBeFalsy(); // input only
    await client.addSecretVersion({ parent: secret.name, payload: { data: Buffer.from('x') } });
    const [listed] = await client.listSecrets({ parent: PROJECT });
    expect(listed.map((s) => Number(s.expireTime?.seconds) * 1000)).toEqual([
      clock + 2 * HOUR * 1000,
    ]);

    clock += 2 * HOUR * 1000 - 1;
    expect(await expiresAt(secret.name!)).toBe(Date.parse('2030-01-01T02:00:00Z'));
    clock += 1;
    expect(await codeOf(client.getSecret({ name: secret.name }))).toBe(status.NOT_FOUND);
    expect(await codeOf(client.accessSecretVersion({ name: `${secret.name}/versions/1` }))).toBe(
      status.NOT_FOUND,
    );
    expect((await client.listSecrets({ parent: PROJECT }))[0]).toEqual([]);
    // Deleted, so the id can be used again, without the old versions.
    const [again] = await client.createSecret({
      parent: PROJECT,
      secretId: 'short-lived',
      secret: { replication: { automatic: {} } },
    });
    expect(again.expireTime).toBeFalsy();
    expect((await client.listSecretVersions({ parent: again.name }))[0]).toEqual([]);
  });

  it('UpdateSecret sets the expiration with update_mask ttl or expire_time, moves it, and removes it when the field is empty', async () => {
    const [secret] = await client.createSecret({
      parent: PROJECT,
      secretId: 'kept',
      secret: { replication: { automatic: {} }, annotations: { a: 'b' } },
    });
    expect(secret.expireTime).toBeFalsy();
    await client.updateSecret({
      secret: { name: secret.name, ttl: { seconds: HOUR } },
      updateMask: { paths: ['ttl'] },
    });
    expect(await expiresAt(secret.name!)).toBe(clock + HOUR * 1000);
    // A later ttl is counted from the update, not from the creation.
    clock += 30 * 60 * 1000;
    await client.updateSecret({
      secret: { name: secret.name, ttl: { seconds: HOUR } },
      updateMask: { paths: ['ttl'] },
    });
    expect(await expiresAt(secret.name!)).toBe(clock + HOUR * 1000);
    await client.updateSecret({
      secret: { name: secret.name, expireTime: { seconds: clock / 1000 + 3 * HOUR } },
      updateMask: { paths: ['expire_time'] },
    });
    expect(await expiresAt(secret.name!)).toBe(clock + 3 * HOUR * 1000);
    // Other fields are untouched by an expiration update, and vice versa.
    const [annotated] = await client.updateSecret({
      secret: { name: secret.name, annotations: { c: 'd' } },
      updateMask: { paths: ['annotations'] },
    });
    expect(annotated.annotations).toEqual({ c: 'd' });
    expect(await expiresAt(secret.name!)).toBe(clock + 3 * HOUR * 1000);
    await client.updateSecret({ secret: { name: secret.name }, updateMask: { paths: ['ttl'] } });
    expect(await expiresAt(secret.name!)).toBeUndefined();
    clock += 200 * 365 * 24 * HOUR * 1000;
    expect((await client.getSecret({ name: secret.name }))[0].name).toBe(secret.name);
  });

  it('refuses an expiration less than 60 seconds or more than 100 years away with INVALID_ARGUMENT', async () => {
    const create = (secretId: string, ttlSeconds: number) =>
      client.createSecret({
        parent: PROJECT,
        secretId,
        secret: { replication: { automatic: {} }, ttl: { seconds: ttlSeconds } },
      });
    expect(await codeOf(create('too-soon', 59))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(create('too-late', 101 * 365 * 24 * HOUR))).toBe(status.INVALID_ARGUMENT);
    await create('just-in', 60);
    expect(
      await codeOf(
        client.updateSecret({
          secret: { name: `${PROJECT}/secrets/just-in`, expireTime: { seconds: clock / 1000 } },
          updateMask: { paths: ['expire_time'] },
        }),
      ),
    ).toBe(status.INVALID_ARGUMENT);
    expect(await expiresAt(`${PROJECT}/secrets/just-in`)).toBe(clock + 60_000);
  });
});
