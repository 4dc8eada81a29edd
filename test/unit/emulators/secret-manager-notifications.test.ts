// The pure half of the Secret Manager emulator's event notifications: the message Secret Manager
// publishes (https://cloud.google.com/secret-manager/docs/event-notifications, "Notification
// format") and the rules of Secret.topics. The publishing itself: test/integration/secret-manager/
// notifications.test.ts.
import { status } from '@grpc/grpc-js';
import {
  notificationMessage,
  topicConfiguredMessage,
  type AnsweredSecret,
  type AnsweredVersion,
} from '../../../emulators/secret-manager/notifications/event-message';
import { serviceAgentOf } from '../../../emulators/secret-manager/notifications/secret-events';
import { checkTopics, MAX_TOPICS } from '../../../emulators/secret-manager/notifications/topics';

const AT = new Date('2026-03-01T10:00:00.123Z');
const SECRET: AnsweredSecret = {
  name: 'projects/123/secrets/default-pull-secret',
  replication: {
    user_managed: {
      replicas: [
        {
          location: 'us-central1',
          customer_managed_encryption: {
            kms_key_name: 'projects/p/locations/us-central1/keyRings/r/cryptoKeys/k',
          },
        },
      ],
    },
    // proto-loader's oneof marker (oneofs: true) is not a field of the resource.
    replication: 'user_managed',
  },
  labels: { team: 'fleet' },
  annotations: {},
  version_aliases: { current: 2 },
  topics: [{ name: 'projects/p/topics/rotations' }],
  create_time: { seconds: '1772359200', nanos: 5_000_000 },
  etag: '"abc"',
};
const VERSION: AnsweredVersion = {
  name: 'projects/123/secrets/default-pull-secret/versions/2',
  state: 'DESTROYED',
  create_time: { seconds: '1772359200', nanos: 0 },
  destroy_time: { seconds: '1772359260', nanos: 0 },
  etag: '"v2"',
  client_specified_payload_checksum: false,
};

const dataOf = (message: { data?: Buffer }) =>
  JSON.parse(message.data?.toString('utf8') ?? 'null') as Record<string, unknown>;

describe('Secret Manager notifications: the message', () => {
  it('a secret event: the four attributes, and the Secret in proto3 JSON', () => {
    const message = notificationMessage('SECRET_UPDATE', AT, { secret: SECRET });
    expect(message.attributes).toEqual({
      eventType: 'SECRET_UPDATE',
      dataFormat: 'JSON_API_V1',
      secretId: SECRET.name,
      timestamp: '2026-03-01T10:00:00.123Z',
    });
    expect(dataOf(message)).toEqual({
      name: SECRET.name,
      replication: {
        userManaged: {
          replicas: [
            {
              location: 'us-central1',
              customerManagedEncryption: {
                kmsKeyName: 'projects/p/locations/us-central1/keyRings/r/cryptoKeys/k',
              },
            },
          ],
        },
      },
      createTime: '2026-03-01T10:00:00.005Z',
      labels: { team: 'fleet' },
      topics: [{ name: 'projects/p/topics/rotations' }],
      etag: '"abc"',
      // int64 in proto3 JSON is a string; empty maps (annotations) are left out.
      versionAliases: { current: '2' },
    });
  });

  it('a version event: versionId too, and the SecretVersion without any payload field', () => {
    const message = notificationMessage('SECRET_VERSION_DESTROY', AT, {
      secretName: SECRET.name,
      version: VERSION,
    });
    expect(message.attributes).toMatchObject({
      eventType: 'SECRET_VERSION_DESTROY',
      secretId: SECRET.name,
      versionId: VERSION.name,
    });
    expect(dataOf(message)).toEqual({
      name: VERSION.name,
      createTime: '2026-03-01T10:00:00.000Z',
      destroyTime: '2026-03-01T10:01:00.000Z',
      state: 'DESTROYED',
      etag: '"v2"',
    });
  });

  it('automatic replication, no expiration, no topics: only what is set', () => {
    const data = dataOf(
      notificationMessage('SECRET_CREATE', AT, {
        secret: {
          ...SECRET,
          replication: { automatic: {} },
          labels: {},
          version_aliases: {},
          topics: [],
          expire_time: { seconds: '1772445600', nanos: 0 },
        },
      }),
    );
    expect(data).toEqual({
      name: SECRET.name,
      replication: { automatic: {} },
      createTime: '2026-03-01T10:00:00.005Z',
      expireTime: '2026-03-02T10:00:00.000Z',
      etag: '"abc"',
    });
  });

  it('TOPIC_CONFIGURED: the event type alone, no data', () => {
    expect(topicConfiguredMessage()).toEqual({ attributes: { eventType: 'TOPIC_CONFIGURED' } });
  });

  it('the service agent that publishes', () => {
    expect(serviceAgentOf('123')).toBe('service-123@gcp-sa-secretmanager.iam.gserviceaccount.com');
  });
});

describe('Secret Manager notifications: Secret.topics', () => {
  const refusal = (topics: { name?: string }[]) => {
    try {
      checkTopics(topics);
      return undefined;
    } catch (error) {
      return (error as { code: number }).code;
    }
  };

  it('takes up to ten topics by full name, in order', () => {
    const names = Array.from({ length: MAX_TOPICS }, (_, i) => `projects/p/topics/t-${i}`);
    expect(checkTopics(names.map((name) => ({ name })))).toEqual(names);
    expect(checkTopics(undefined)).toEqual([]);
  });

  it.each([
    ['a bare topic id', 'rotations'],
    ['a subscription', 'projects/p/subscriptions/s'],
    ['a topic id not starting with a letter', 'projects/p/topics/1abc'],
    ['a topic id under 3 characters', 'projects/p/topics/ab'],
    ['a topic id starting with goog', 'projects/p/topics/google-events'],
    ['an empty name', ''],
  ])('refuses %s (INVALID_ARGUMENT)', (_, name) => {
    expect(refusal([{ name }])).toBe(status.INVALID_ARGUMENT);
  });

  it('refuses eleven topics, and the same topic twice', () => {
    const eleven = Array.from({ length: MAX_TOPICS + 1 }, (_, i) => ({
      name: `projects/p/topics/t-${i}`,
    }));
    expect(refusal(eleven)).toBe(status.INVALID_ARGUMENT);
    expect(refusal([{ name: 'projects/p/topics/t-1' }, { name: 'projects/p/topics/t-1' }])).toBe(
      status.INVALID_ARGUMENT,
    );
  });
});
