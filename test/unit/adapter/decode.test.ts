import { decodeIncomingEvent, PUBSUB_MESSAGE_PUBLISHED } from '../../../shared/events/decode';

const sentinel = (overrides: Record<string, unknown> = {}) => ({
  specversion: '1.0',
  type: 'com.redhat.hyperfleet.cluster.reconcile',
  source: 'hyperfleet-sentinel',
  id: '0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
  datacontenttype: 'application/json',
  data: {
    id: 'cls-123',
    kind: 'Cluster',
    href: '/api/hyperfleet/v1/clusters/cls-123',
    generation: 4,
  },
  ...overrides,
});
const pubsub = (payload: unknown, raw?: string) => ({
  specversion: '1.0',
  type: PUBSUB_MESSAGE_PUBLISHED,
  source: '//pubsub.googleapis.com/projects/p/topics/hyperfleet-system-clusters',
  id: '123',
  data: {
    message: {
      data: raw ?? Buffer.from(JSON.stringify(payload)).toString('base64'),
      attributes: { _watermill_message_uuid: 'u' },
      messageId: '123',
    },
    subscription: 'projects/p/subscriptions/s',
  },
});

describe('decodeIncomingEvent', () => {
  it('decodes Sentinel structured JSON inside a Pub/Sub messagePublished event', () => {
    expect(decodeIncomingEvent(pubsub(sentinel()))).toEqual({
      kind: 'cluster',
      via: 'pubsub',
      event: {
        eventId: '0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
        type: 'com.redhat.hyperfleet.cluster.reconcile',
        source: 'hyperfleet-sentinel',
        clusterId: 'cls-123',
        generation: 4,
      },
    });
  });

  it('decodes a Sentinel CloudEvent delivered directly', () => {
    expect(decodeIncomingEvent(sentinel())).toMatchObject({
      kind: 'cluster',
      via: 'direct',
      event: { clusterId: 'cls-123' },
    });
  });

  it.each([
    'cluster.create',
    'cluster.update',
    'cluster.delete',
    'com.redhat.hyperfleet.cluster.reconcile.v1',
  ])('accepts the older type %s', (type) => {
    expect(decodeIncomingEvent(pubsub(sentinel({ type })))).toMatchObject({
      kind: 'cluster',
      event: { type },
    });
  });

  it('accepts older events without a generation', () => {
    expect(
      decodeIncomingEvent(sentinel({ type: 'cluster.create', data: { id: 'cls-1' } })),
    ).toMatchObject({ kind: 'cluster', event: { clusterId: 'cls-1' } });
  });

  it.each([
    ['com.redhat.hyperfleet.nodepool.reconcile', /node pool/],
    ['com.example.something', /not a cluster event/],
  ])('ignores %s', (type, reason) => {
    expect(decodeIncomingEvent(pubsub(sentinel({ type })))).toMatchObject({
      kind: 'ignored',
      reason: expect.stringMatching(reason),
    });
  });

  it.each<[string, unknown, RegExp]>([
    [
      'an envelope without message',
      { ...pubsub(sentinel()), data: { subscription: 's' } },
      /message is missing/,
    ],
    ['message data that is not base64', pubsub(undefined, '%%%not-base64%%%'), /not base64/],
    [
      'message data that is not JSON',
      pubsub(undefined, Buffer.from('{truncated').toString('base64')),
      /not JSON/,
    ],
    ['message data that is a JSON array', pubsub([1, 2]), /not a JSON object/],
    [
      'a CloudEvent without source',
      pubsub({ ...sentinel(), source: undefined }),
      /not a valid CloudEvent/,
    ],
    [
      'a CloudEvent with a bad specversion',
      pubsub(sentinel({ specversion: '0.1' })),
      /not a valid CloudEvent/,
    ],
    [
      'data without id',
      pubsub(sentinel({ data: { kind: 'Cluster', generation: 1 } })),
      /data.id|id/,
    ],
    [
      'a generation that is a string',
      pubsub(sentinel({ data: { id: 'c', generation: '2' } })),
      /generation must be a number/,
    ],
    [
      'a negative generation',
      pubsub(sentinel({ data: { id: 'c', generation: -1 } })),
      /generation must be >= 1/,
    ],
    [
      'a huge generation',
      pubsub(sentinel({ data: { id: 'c', generation: 2 ** 40 } })),
      /generation must be at most/,
    ],
    [
      'a wrong kind',
      pubsub(sentinel({ data: { id: 'c', kind: 'NodePool', generation: 1 } })),
      /kind must be "Cluster"/,
    ],
  ])('reports %s as malformed, saying what was wrong', (_name, incoming, problem) => {
    const decoded = decodeIncomingEvent(incoming as never);
    expect(decoded).toMatchObject({ kind: 'malformed' });
    expect((decoded as { problem: string }).problem).toMatch(problem);
  });
});
