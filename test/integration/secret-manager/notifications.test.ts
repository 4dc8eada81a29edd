// Secret Manager's event notifications through the real clients: a secret's `topics` make the
// emulator publish to Google's Pub/Sub emulator on every change, with the attributes and data the
// service documents (https://cloud.google.com/secret-manager/docs/event-notifications), and a
// topic it cannot publish to refuses the change. The message itself, field by field:
// test/unit/emulators/secret-manager-notifications.test.ts.
import { status } from '@grpc/grpc-js';
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { derivedProjectNumber } from '../../../emulators/common/derived-number';
import {
  startPubSubEmulator,
  type PubSubEmulator,
} from '../../../emulators/pubsub/pubsub-emulator';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { canaryPullSecret, leaks } from '../../helpers/canary';
import { secretManagerClient } from '../../helpers/secret-manager';

const PROJECT = 'demo-project';
const NUMBER = derivedProjectNumber(PROJECT);
const TOPIC = `projects/${PROJECT}/topics/secret-events`;
const OTHER_TOPIC = `projects/${PROJECT}/topics/secret-audit`;
const SUBSCRIPTION = `projects/${PROJECT}/subscriptions/secret-events-tap`;
const OTHER_SUBSCRIPTION = `projects/${PROJECT}/subscriptions/secret-audit-tap`;

interface Received {
  readonly attributes: Record<string, string>;
  readonly data: string;
}

/** The Pub/Sub emulator's REST surface: topics, taps, and what reached them. */
async function rest(pubsub: PubSubEmulator, method: string, path: string, body: unknown) {
  const response = await fetch(`http://${pubsub.endpoint}/v1/${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as {
    receivedMessages?: {
      ackId: string;
      message: { data?: string; attributes?: Record<string, string> };
    }[];
  };
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: { code?: number; details?: string }) => ({ code: error.code, details: error.details }),
  );

describe('Secret Manager emulator: event notifications to Pub/Sub', () => {
  let pubsub: PubSubEmulator;
  let sm: SecretManagerEmulator;
  let client: SecretManagerServiceClient;

  beforeAll(async () => {
    pubsub = await startPubSubEmulator();
    sm = await startSecretManagerEmulator({ pubsubEmulatorHost: pubsub.endpoint });
    client = secretManagerClient(sm.endpoint);
    for (const [topic, subscription] of [
      [TOPIC, SUBSCRIPTION],
      [OTHER_TOPIC, OTHER_SUBSCRIPTION],
    ] as const) {
      await rest(pubsub, 'PUT', topic, {});
      await rest(pubsub, 'PUT', subscription, { topic });
    }
  }, 90_000);
  afterAll(async () => {
    await client?.close();
    await sm?.stop();
    await pubsub?.stop();
  });

  /**
   * Exactly `count` messages on the tap, acknowledged, by event type then by arrival: the emulator
   * has handed every publish to Pub/Sub once `idle()` resolves, and nothing more may follow.
   */
  async function received(subscription: string, count: number): Promise<Received[]> {
    await sm.notifications.idle();
    const messages: Received[] = [];
    const deadline = Date.now() + 10_000;
    for (;;) {
      const done = messages.length >= count;
      const pulled = await rest(pubsub, 'POST', `${subscription}:pull`, {
        maxMessages: 20,
        returnImmediately: done || Date.now() > deadline,
      });
      const batch = pulled.receivedMessages ?? [];
      if (batch.length > 0)
        await rest(pubsub, 'POST', `${subscription}:acknowledge`, {
          ackIds: batch.map((m) => m.ackId),
        });
      messages.push(
        ...batch.map(({ message }) => ({
          attributes: message.attributes ?? {},
          data: Buffer.from(message.data ?? '', 'base64').toString('utf8'),
        })),
      );
      if (done || Date.now() > deadline) break;
    }
    expect(messages).toHaveLength(count);
    return messages.sort((a, b) =>
      (a.attributes.eventType ?? '').localeCompare(b.attributes.eventType ?? ''),
    );
  }

  const secretName = (id: string) => `projects/${NUMBER}/secrets/${id}`;
  const isoTime = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  const eventAttributes = (eventType: string, id: string, version?: number) => ({
    eventType,
    dataFormat: 'JSON_API_V1',
    secretId: secretName(id),
    ...(version ? { versionId: `${secretName(id)}/versions/${version}` } : {}),
    timestamp: isoTime,
  });

  it('publishes every change of a secret with topics, never its payload', async () => {
    const canary = canaryPullSecret('notifications');
    const [created] = await client.createSecret({
      parent: `projects/${PROJECT}`,
      secretId: 'rotating',
      secret: {
        replication: { automatic: {} },
        labels: { use: 'default' },
        topics: [{ name: TOPIC }],
      },
    });
    expect(created.topics).toEqual([expect.objectContaining({ name: TOPIC })]);
    const [read] = await client.getSecret({ name: created.name! });
    expect(read.topics?.map((t) => t.name)).toEqual([TOPIC]);

    // The test message first (no data, no other attribute), then the change.
    const [create, configured] = await received(SUBSCRIPTION, 2);
    expect(configured).toEqual({ attributes: { eventType: 'TOPIC_CONFIGURED' }, data: '' });
    expect(create!.attributes).toEqual(eventAttributes('SECRET_CREATE', 'rotating'));
    expect(JSON.parse(create!.data)).toEqual({
      name: secretName('rotating'),
      replication: { automatic: {} },
      createTime: isoTime,
      labels: { use: 'default' },
      topics: [{ name: TOPIC }],
      etag: created.etag,
    });

    const [version] = await client.addSecretVersion({
      parent: created.name!,
      payload: { data: Buffer.from(canary.text) },
    });
    const [added] = await received(SUBSCRIPTION, 1);
    expect(added!.attributes).toEqual(eventAttributes('SECRET_VERSION_ADD', 'rotating', 1));
    expect(JSON.parse(added!.data)).toEqual({
      name: version.name,
      createTime: isoTime,
      state: 'ENABLED',
      etag: version.etag,
    });
    expect(leaks(JSON.stringify(added), [canary])).toEqual([]);

    // Reads publish nothing.
    await client.accessSecretVersion({ name: version.name! });
    await client.getSecretVersion({ name: version.name! });
    await client.listSecretVersions({ parent: created.name! });

    for (const [call, eventType, state] of [
      [
        () => client.disableSecretVersion({ name: version.name! }),
        'SECRET_VERSION_DISABLE',
        'DISABLED',
      ],
      [
        () => client.enableSecretVersion({ name: version.name! }),
        'SECRET_VERSION_ENABLE',
        'ENABLED',
      ],
      [
        () => client.destroySecretVersion({ name: version.name! }),
        'SECRET_VERSION_DESTROY',
        'DESTROYED',
      ],
    ] as const) {
      await call();
      const [message] = await received(SUBSCRIPTION, 1);
      expect(message!.attributes).toEqual(eventAttributes(eventType, 'rotating', 1));
      expect(JSON.parse(message!.data)).toMatchObject({ name: version.name, state });
      expect(leaks(JSON.stringify(message), [canary])).toEqual([]);
    }

    // A second topic: TOPIC_CONFIGURED goes to every topic of the secret, the old one too.
    await client.updateSecret({
      secret: { name: created.name!, topics: [{ name: TOPIC }, { name: OTHER_TOPIC }] },
      updateMask: { paths: ['topics'] },
    });
    for (const subscription of [SUBSCRIPTION, OTHER_SUBSCRIPTION]) {
      const [update, test] = await received(subscription, 2);
      expect(test!.attributes).toEqual({ eventType: 'TOPIC_CONFIGURED' });
      expect(update!.attributes).toEqual(eventAttributes('SECRET_UPDATE', 'rotating'));
      expect(JSON.parse(update!.data).topics).toEqual([{ name: TOPIC }, { name: OTHER_TOPIC }]);
    }

    // Any other update: SECRET_UPDATE alone, to both.
    await client.updateSecret({
      secret: { name: created.name!, labels: { use: 'rotated' } },
      updateMask: { paths: ['labels'] },
    });
    for (const subscription of [SUBSCRIPTION, OTHER_SUBSCRIPTION]) {
      const [update] = await received(subscription, 1);
      expect(update!.attributes.eventType).toBe('SECRET_UPDATE');
      expect(JSON.parse(update!.data).labels).toEqual({ use: 'rotated' });
    }

    await client.deleteSecret({ name: created.name! });
    for (const subscription of [SUBSCRIPTION, OTHER_SUBSCRIPTION]) {
      const [deleted] = await received(subscription, 1);
      expect(deleted!.attributes).toEqual(eventAttributes('SECRET_DELETE', 'rotating'));
      expect(JSON.parse(deleted!.data)).toMatchObject({ name: secretName('rotating') });
    }
  }, 60_000);

  it('a secret without topics publishes nothing', async () => {
    const [plain] = await client.createSecret({
      parent: `projects/${PROJECT}`,
      secretId: 'quiet',
      secret: { replication: { automatic: {} } },
    });
    await client.addSecretVersion({ parent: plain.name!, payload: { data: Buffer.from('x') } });
    await client.deleteSecret({ name: plain.name! });
    await received(SUBSCRIPTION, 0);
  });

  it('refuses bad topic names, more than ten, and a topic it cannot publish to', async () => {
    const create = (secretId: string, topics: string[]) =>
      codeOf(
        client.createSecret({
          parent: `projects/${PROJECT}`,
          secretId,
          secret: { replication: { automatic: {} }, topics: topics.map((name) => ({ name })) },
        }),
      );
    expect(await create('bad-name', ['secret-events'])).toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
    expect(
      await create(
        'too-many',
        Array.from({ length: 11 }, (_, i) => `projects/${PROJECT}/topics/t-${i}`),
      ),
    ).toMatchObject({ code: status.INVALID_ARGUMENT });
    const missing = await create('missing-topic', [TOPIC, `projects/${PROJECT}/topics/absent`]);
    expect(missing).toEqual({
      code: status.FAILED_PRECONDITION,
      details: expect.stringContaining(
        `service-${NUMBER}@gcp-sa-secretmanager.iam.gserviceaccount.com`,
      ),
    });
    for (const id of ['bad-name', 'too-many', 'missing-topic'])
      expect(await codeOf(client.getSecret({ name: secretName(id) }))).toMatchObject({
        code: status.NOT_FOUND,
      });
    // The test message reached the topic that exists; no SECRET_CREATE followed.
    const [test] = await received(SUBSCRIPTION, 1);
    expect(test!.attributes).toEqual({ eventType: 'TOPIC_CONFIGURED' });

    // UpdateSecret likewise: the topics stay as they were.
    const [kept] = await client.createSecret({
      parent: `projects/${PROJECT}`,
      secretId: 'kept',
      secret: { replication: { automatic: {} }, topics: [{ name: TOPIC }] },
    });
    await received(SUBSCRIPTION, 2);
    expect(
      await codeOf(
        client.updateSecret({
          secret: { name: kept.name!, topics: [{ name: `projects/${PROJECT}/topics/absent` }] },
          updateMask: { paths: ['topics'] },
        }),
      ),
    ).toMatchObject({ code: status.FAILED_PRECONDITION });
    const [after] = await client.getSecret({ name: kept.name! });
    expect(after.topics?.map((t) => t.name)).toEqual([TOPIC]);
    await client.deleteSecret({ name: kept.name! });
    await received(SUBSCRIPTION, 1);
  });

  it('without a Pub/Sub to publish to, a secret with topics is refused, not left silent', async () => {
    const alone = await startSecretManagerEmulator();
    const aloneClient = secretManagerClient(alone.endpoint);
    try {
      const refused = await codeOf(
        aloneClient.createSecret({
          parent: `projects/${PROJECT}`,
          secretId: 'no-pubsub',
          secret: { replication: { automatic: {} }, topics: [{ name: TOPIC }] },
        }),
      );
      expect(refused).toEqual({
        code: status.FAILED_PRECONDITION,
        details: expect.stringContaining('--pubsub'),
      });
      // Without topics, nothing changes.
      await aloneClient.createSecret({
        parent: `projects/${PROJECT}`,
        secretId: 'no-pubsub',
        secret: { replication: { automatic: {} } },
      });
    } finally {
      await aloneClient.close();
      await alone.stop();
    }
  });
});
