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
      trace: {},
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

  it.each([
    ['a decimal string generation (Sentinel templates render numbers as text)', '5', 5],
    ['a decimal string generation with spaces', ' 7 ', 7],
    ['a numeric generation', 5, 5],
  ])('accepts %s', (_name, generation, expected) => {
    expect(
      decodeIncomingEvent(pubsub(sentinel({ data: { id: 'cls-1', generation } }))),
    ).toMatchObject({ kind: 'cluster', event: { clusterId: 'cls-1', generation: expected } });
  });

  it('reads null optional fields (kind, href, generation) and null attributes as absent', () => {
    const event = pubsub(
      sentinel({ data: { id: 'cls-1', kind: null, href: null, generation: null } }),
    );
    const decoded = decodeIncomingEvent({
      ...event,
      data: {
        ...(event.data as object),
        message: { ...(event.data as { message: object }).message, attributes: null },
      },
    } as never);
    expect(decoded).toMatchObject({ kind: 'cluster', event: { clusterId: 'cls-1' } });
    expect((decoded as { event: { generation?: number } }).event.generation).toBeUndefined();
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
      /^invalid Pub\/Sub envelope: message: expected the Pub\/Sub message object/,
    ],
    [
      'message data that is not base64',
      pubsub(undefined, '%%%not-base64%%%'),
      /message\.data: not base64/,
    ],
    [
      'message data that is not JSON',
      pubsub(undefined, Buffer.from('{truncated').toString('base64')),
      /message\.data: not JSON/,
    ],
    ['message data that is a JSON array', pubsub([1, 2]), /message\.data: not a JSON object/],
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
      'a generation that is a word',
      pubsub(sentinel({ data: { id: 'c', generation: 'two' } })),
      /data\.generation: expected an integer >= 1 \(a number or a decimal string/,
    ],
    [
      'a generation that is a decimal string with a fraction',
      pubsub(sentinel({ data: { id: 'c', generation: '2.5' } })),
      /data\.generation: expected an integer >= 1/,
    ],
    [
      'data that is null',
      pubsub(sentinel({ data: null })),
      /data: expected an object \{id, kind, href, generation\}/,
    ],
    [
      'an id that is null',
      pubsub(sentinel({ data: { id: null, generation: 1 } })),
      /data\.id: expected the cluster id/,
    ],
    [
      'a negative generation',
      pubsub(sentinel({ data: { id: 'c', generation: -1 } })),
      /data\.generation: must be >= 1/,
    ],
    [
      'a huge generation',
      pubsub(sentinel({ data: { id: 'c', generation: 2 ** 40 } })),
      /data\.generation: must be at most 2147483647/,
    ],
    [
      'a wrong kind',
      pubsub(sentinel({ data: { id: 'c', kind: 'NodePool', generation: 1 } })),
      /data\.kind: must be "Cluster"/,
    ],
  ])('reports %s as malformed, saying what was wrong', (_name, incoming, problem) => {
    const decoded = decodeIncomingEvent(incoming as never);
    expect(decoded).toMatchObject({ kind: 'malformed' });
    expect((decoded as { problem: string }).problem).toMatch(problem);
  });
});
