// The Secret Manager emulator's version aliases through the real client, as Secret.version_aliases
// documents them (resources.proto; https://cloud.google.com/secret-manager/docs/assign-alias-to-secret-version).
// The rules themselves and what is undocumented are in emulators/secret-manager/rules.ts and state.ts.
import { status } from '@grpc/grpc-js';
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { derivedProjectNumber } from '../../../emulators/common/derived-number';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { secretManagerClient } from '../../helpers/secret-manager';

const SECRET = 'projects/demo-project/secrets/aliased';

const codeOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: { code?: number }) => error.code,
  );

describe('Secret Manager emulator: version aliases', () => {
  let emulator: SecretManagerEmulator;
  let client: SecretManagerServiceClient;

  beforeEach(async () => {
    emulator = await startSecretManagerEmulator();
    client = secretManagerClient(emulator.endpoint);
    await client.createSecret({
      parent: 'projects/demo-project',
      secretId: 'aliased',
      secret: { replication: { automatic: {} }, annotations: { keep: 'me' } },
    });
    for (const text of ['one', 'two', 'three'])
      await client.addSecretVersion({ parent: SECRET, payload: { data: Buffer.from(text) } });
  });
  afterEach(async () => {
    await client.close();
    await emulator.stop();
  });

  const setAliases = (versionAliases: Record<string, number>, etag?: string) =>
    client.updateSecret({
      secret: { name: SECRET, versionAliases, ...(etag ? { etag } : {}) },
      updateMask: { paths: ['version_aliases'] },
    });
  const aliases = async () => {
    const [secret] = await client.getSecret({ name: SECRET });
    return Object.entries(secret.versionAliases ?? {})
      .map(([alias, version]) => `${alias}=${String(version)}`)
      .sort();
  };
  const access = async (id: string) => {
    const [read] = await client.accessSecretVersion({ name: `${SECRET}/versions/${id}` });
    return `${read.name?.split('/').pop()}:${read.payload?.data?.toString()}`;
  };

  it('sets aliases by update mask with the etag, and reads a version through its alias', async () => {
    const [before] = await client.getSecret({ name: SECRET });
    const [updated] = await setAliases({ current: 2, pinned: 1 }, before.etag ?? '');
    expect(updated.etag).not.toBe(before.etag);
    expect(await aliases()).toEqual(['current=2', 'pinned=1']);
    // The response names the version by number, as for `latest`.
    expect(await access('current')).toBe('2:two');
    expect(await access('pinned')).toBe('1:one');
    const [meta] = await client.getSecretVersion({ name: `${SECRET}/versions/current` });
    // Answered with the project number, as every name the service answers.
    expect(meta.name).toBe(
      `projects/${derivedProjectNumber('demo-project')}/secrets/aliased/versions/2`,
    );
    // A stale etag is refused, as for any UpdateSecret.
    expect(await codeOf(setAliases({ current: 3 }, before.etag ?? ''))).toBe(
      status.FAILED_PRECONDITION,
    );
    expect(await codeOf(access('unknown'))).toBe(status.NOT_FOUND);
  });

  it('replaces the whole map, and only the fields the mask names', async () => {
    await setAliases({ current: 2, pinned: 1 });
    await setAliases({ current: 3 });
    expect(await aliases()).toEqual(['current=3']);
    await client.updateSecret({
      secret: { name: SECRET, annotations: { other: 'value' }, versionAliases: { ignored: 1 } },
      updateMask: { paths: ['annotations'] },
    });
    expect(await aliases()).toEqual(['current=3']);
    const [both] = await client.updateSecret({
      secret: { name: SECRET, annotations: { a: 'b' }, versionAliases: { current: 1 } },
      updateMask: { paths: ['annotations', 'version_aliases'] },
    });
    expect(both.annotations).toEqual({ a: 'b' });
    expect(await access('current')).toBe('1:one');
  });

  it.each([
    ['a digit first', { '1st': 1 }],
    ['latest', { latest: 1 }],
    ['Latest, in any case', { Latest: 1 }],
    ['new, in any case', { New: 1 }],
    ['NEW', { NEW: 1 }],
    ['a dot', { 'has.dot': 1 }],
    ['64 characters', { ['a'.repeat(64)]: 1 }],
    ['a version that does not exist', { current: 9 }],
    ['51 aliases', Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`a${i}`, 1]))],
  ])('refuses %s with INVALID_ARGUMENT', async (_, versionAliases) => {
    expect(await codeOf(setAliases(versionAliases))).toBe(status.INVALID_ARGUMENT);
  });

  it('accepts 63 characters of letters, digits, hyphens and underscores, and 50 aliases', async () => {
    await setAliases({ ['a'.repeat(60) + '_-9']: 1 });
    await setAliases(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`a${i}`, 1])));
    expect(await aliases()).toHaveLength(50);
  });

  it('refuses an alias on a new secret, which has no version to name', async () => {
    const created = client.createSecret({
      parent: 'projects/demo-project',
      secretId: 'fresh',
      secret: { replication: { automatic: {} }, versionAliases: { current: 1 } },
    });
    expect(await codeOf(created)).toBe(status.INVALID_ARGUMENT);
  });

  it('disables and destroys an aliased version; the alias stays and access through it fails', async () => {
    await setAliases({ current: 3, pinned: 2 });
    await client.disableSecretVersion({ name: `${SECRET}/versions/2` });
    expect(await codeOf(access('pinned'))).toBe(status.FAILED_PRECONDITION);
    await client.destroySecretVersion({ name: `${SECRET}/versions/3` });
    expect(await codeOf(access('current'))).toBe(status.FAILED_PRECONDITION);
    expect(await aliases()).toEqual(['current=3', 'pinned=2']);
    // State changes take a version number: an alias is only for GetSecretVersion and AccessSecretVersion.
    expect(await codeOf(client.destroySecretVersion({ name: `${SECRET}/versions/pinned` }))).toBe(
      status.NOT_FOUND,
    );
  });
});
