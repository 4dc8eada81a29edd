import { decodeIncomingEvent, PUBSUB_MESSAGE_PUBLISHED } from '../../../shared/events/decode';

const INNER = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const OUTER = '00-11111111111111111111111111111111-2222222222222222-00';

const sentinel = (extensions: Record<string, unknown> = {}) => ({
  specversion: '1.0',
  type: 'com.redhat.hyperfleet.cluster.reconcile',
  source: 'hyperfleet-sentinel',
  id: 'e-1',
  data: { id: 'cls-1', kind: 'Cluster', generation: 2 },
  ...extensions,
});
const pubsub = (inner: unknown, outer: Record<string, unknown> = {}) => ({
  specversion: '1.0',
  type: PUBSUB_MESSAGE_PUBLISHED,
  source: '//pubsub.googleapis.com/projects/p/topics/t',
  id: 'm-1',
  data: { message: { data: Buffer.from(JSON.stringify(inner)).toString('base64') } },
  ...outer,
});

const traceOf = (incoming: Parameters<typeof decodeIncomingEvent>[0]) => {
  const decoded = decodeIncomingEvent(incoming);
  if (decoded.kind !== 'cluster')
    throw new Error(`not a cluster event: ${JSON.stringify(decoded)}`);
  return decoded.trace;
};

describe('trace context of a Sentinel event', () => {
  it("keeps the inner Sentinel event's traceparent and tracestate extensions", () => {
    expect(
      traceOf(
        pubsub(sentinel({ traceparent: INNER, tracestate: 'sentinel=1' }), { traceparent: OUTER }),
      ),
    ).toEqual({ traceparent: INNER, tracestate: 'sentinel=1' });
  });

  it("falls back to the delivery's (outer CloudEvent's) extension", () => {
    expect(traceOf(pubsub(sentinel(), { traceparent: OUTER, tracestate: 'eventarc=2' }))).toEqual({
      traceparent: OUTER,
      tracestate: 'eventarc=2',
    });
  });

  it('reads the extension of a directly delivered Sentinel event', () => {
    expect(traceOf(sentinel({ traceparent: INNER }))).toEqual({ traceparent: INNER });
  });

  it('is empty without any traceparent', () => {
    expect(traceOf(pubsub(sentinel()))).toEqual({});
  });

  it('ignores an invalid traceparent with a note, never failing the event', () => {
    expect(traceOf(pubsub(sentinel({ traceparent: 'garbage' })))).toEqual({
      ignored: expect.stringContaining('event traceparent is not a valid W3C traceparent'),
    });
    expect(traceOf(pubsub(sentinel({ traceparent: 'garbage' }), { traceparent: OUTER }))).toEqual({
      traceparent: OUTER,
      ignored: expect.stringContaining('event traceparent'),
    });
  });
});
