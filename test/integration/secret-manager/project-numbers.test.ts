// Secret Manager names as the real service has them, through the real client: a request may name
// the project by id or by number and reaches the same secret, and every name answered (and the
// names in NOT_FOUND and ALREADY_EXISTS messages) carries the project number. Sources in
// emulators/secret-manager/state.ts (AIP-2510; a recorded exchange with the service; an error
// message quoted from it).
import { status } from '@grpc/grpc-js';
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { derivedProjectNumber } from '../../../emulators/common/derived-number';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { SecretManagerState } from '../../../emulators/secret-manager/state';
import { secretManagerClient } from '../../helpers/secret-manager';

const ID = 'demo-project';
const NUMBER = derivedProjectNumber(ID);
const BY_ID = `projects/${ID}/secrets/named`;
const BY_NUMBER = `projects/${NUMBER}/secrets/named`;

const failureOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: { code?: number; details?: string }) => ({ code: error.code, details: error.details }),
  );

const text = (data: Uint8Array | string | null | undefined) =>
  data === null || data === undefined ? '' : Buffer.from(data).toString('utf8');

describe('Secret Manager emulator: project ids and numbers in resource names', () => {
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

  const create = (parent: string) =>
    client.createSecret({
      parent,
      secretId: 'named',
      secret: { replication: { automatic: {} }, labels: { team: 'a' } },
    });

  it('answers a secret created by project id with the project number, and so does every method', async () => {
    const [secret] = await create(`projects/${ID}`);
    expect(secret.name).toBe(BY_NUMBER);
    const [added] = await client.addSecretVersion({
      parent: BY_ID,
      payload: { data: Buffer.from('one') },
    });
    expect(added.name).toBe(`${BY_NUMBER}/versions/1`);
    const [got] = await client.getSecret({ name: BY_ID });
    expect(got.name).toBe(BY_NUMBER);
    const [version] = await client.getSecretVersion({ name: `${BY_ID}/versions/latest` });
    expect(version.name).toBe(`${BY_NUMBER}/versions/1`);
    const [updated] = await client.updateSecret({
      secret: { name: BY_ID, labels: { team: 'b' } },
      updateMask: { paths: ['labels'] },
    });
    expect(updated.name).toBe(BY_NUMBER);
    const [disabled] = await client.disableSecretVersion({ name: `${BY_ID}/versions/1` });
    expect(disabled.name).toBe(`${BY_NUMBER}/versions/1`);
  });

  it('finds by project number a secret created by project id, and the other way round', async () => {
    await create(`projects/${ID}`);
    const [got] = await client.getSecret({ name: BY_NUMBER });
    expect(got.labels).toEqual({ team: 'a' });
    // One secret, whichever form names it: creating it again by number is ALREADY_EXISTS, with
    // the number in the message.
    expect(await failureOf(create(`projects/${NUMBER}`))).toEqual({
      code: status.ALREADY_EXISTS,
      details: `Secret [${BY_NUMBER}] already exists.`,
    });

    await client.createSecret({
      parent: `projects/${NUMBER}`,
      secretId: 'by-number',
      secret: { replication: { automatic: {} } },
    });
    const [byId] = await client.getSecret({ name: `projects/${ID}/secrets/by-number` });
    expect(byId.name).toBe(`projects/${NUMBER}/secrets/by-number`);
  });

  it('lists secrets and versions by either form, answering names with the number', async () => {
    await create(`projects/${ID}`);
    await client.addSecretVersion({ parent: BY_ID, payload: { data: Buffer.from('one') } });
    await client.addSecretVersion({ parent: BY_NUMBER, payload: { data: Buffer.from('two') } });
    for (const parent of [`projects/${ID}`, `projects/${NUMBER}`]) {
      const [secrets] = await client.listSecrets({ parent });
      expect(secrets.map((s) => s.name)).toEqual([BY_NUMBER]);
    }
    for (const parent of [BY_ID, BY_NUMBER]) {
      const [versions] = await client.listSecretVersions({ parent });
      expect(versions.map((v) => v.name)).toEqual([
        `${BY_NUMBER}/versions/2`,
        `${BY_NUMBER}/versions/1`,
      ]);
    }
  });

  it('accesses by either form, by number, latest and alias, answering the number form', async () => {
    await create(`projects/${ID}`);
    await client.addSecretVersion({ parent: BY_ID, payload: { data: Buffer.from('one') } });
    await client.addSecretVersion({ parent: BY_ID, payload: { data: Buffer.from('two') } });
    // Aliases and etags belong to the one secret: set through the number with the etag read by id.
    const [read] = await client.getSecret({ name: BY_ID });
    await client.updateSecret({
      secret: { name: BY_NUMBER, versionAliases: { current: 1 }, etag: read.etag ?? '' },
      updateMask: { paths: ['version_aliases'] },
    });
    for (const secret of [BY_ID, BY_NUMBER]) {
      const [latest] = await client.accessSecretVersion({ name: `${secret}/versions/latest` });
      expect([latest.name, text(latest.payload?.data)]).toEqual([`${BY_NUMBER}/versions/2`, 'two']);
      const [aliased] = await client.accessSecretVersion({ name: `${secret}/versions/current` });
      expect([aliased.name, text(aliased.payload?.data)]).toEqual([
        `${BY_NUMBER}/versions/1`,
        'one',
      ]);
      const [numbered] = await client.accessSecretVersion({ name: `${secret}/versions/2` });
      expect(numbered.name).toBe(`${BY_NUMBER}/versions/2`);
    }
    // A stale etag is refused whichever form the update uses.
    expect(
      await failureOf(
        client.updateSecret({
          secret: { name: BY_ID, versionAliases: {}, etag: read.etag ?? '' },
          updateMask: { paths: ['version_aliases'] },
        }),
      ),
    ).toMatchObject({ code: status.FAILED_PRECONDITION });
  });

  it('names the missing secret or version by project number in NOT_FOUND', async () => {
    expect(await failureOf(client.getSecret({ name: `projects/${ID}/secrets/absent` }))).toEqual({
      code: status.NOT_FOUND,
      details: `Secret [projects/${NUMBER}/secrets/absent] not found or has no versions.`,
    });
    await create(`projects/${ID}`);
    expect(await failureOf(client.accessSecretVersion({ name: `${BY_ID}/versions/7` }))).toEqual({
      code: status.NOT_FOUND,
      details: `Secret Version [${BY_NUMBER}/versions/7] not found.`,
    });
  });

  it('tells two projects apart: another id or another number is another, missing, secret', async () => {
    await create(`projects/${ID}`);
    expect(
      await failureOf(client.getSecret({ name: 'projects/other-project/secrets/named' })),
    ).toMatchObject({ code: status.NOT_FOUND });
    expect(
      await failureOf(client.getSecret({ name: 'projects/999999999999/secrets/named' })),
    ).toMatchObject({ code: status.NOT_FOUND });
  });

  it('answers TestIamPermissions on a secret named by number', async () => {
    await create(`projects/${ID}`);
    const [answer] = await client.testIamPermissions({
      resource: BY_NUMBER,
      permissions: ['secretmanager.secrets.get'],
    });
    expect(answer.permissions).toEqual(['secretmanager.secrets.get']);
  });
});

describe('Secret Manager emulator: where project numbers come from', () => {
  it('takes a project number from the IAM configuration when it names the project', async () => {
    const emulator = await startSecretManagerEmulator({
      iam: { projects: { [ID]: '123456789012' } },
      // Only calls with credentials are looked up; these have none.
      googleTokenInfoUrl: 'http://127.0.0.1:9/tokeninfo',
    });
    const client = secretManagerClient(emulator.endpoint);
    try {
      const [secret] = await client.createSecret({
        parent: `projects/${ID}`,
        secretId: 'named',
        secret: { replication: { automatic: {} } },
      });
      expect(secret.name).toBe('projects/123456789012/secrets/named');
      const [got] = await client.getSecret({ name: 'projects/123456789012/secrets/named' });
      expect(got.name).toBe(secret.name);
    } finally {
      await client.close();
      await emulator.stop();
    }
  });

  it('reads a state file written with project ids into the number form', () => {
    const state = new SecretManagerState({
      secrets: [
        {
          name: BY_ID,
          replication: { automatic: {} },
          labels: {},
          annotations: {},
          createTime: '2025-01-01T00:00:00.000Z',
          etag: '"1"',
          nextVersion: 2,
          versions: [
            {
              number: 1,
              state: 'ENABLED',
              createTime: '2025-01-01T00:00:00.000Z',
              data: Buffer.from('one').toString('base64'),
              clientChecksum: false,
            },
          ],
        },
      ],
    });
    expect(state.getSecret(BY_ID).name).toBe(BY_NUMBER);
    expect(state.accessVersion(`${BY_NUMBER}/versions/1`).name).toBe(`${BY_NUMBER}/versions/1`);
    expect(state.snapshot().secrets.map((s) => s.name)).toEqual([BY_NUMBER]);
  });
});
