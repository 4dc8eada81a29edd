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

  it("never continues the delivery's (outer CloudEvent's) traceparent: a new root instead", () => {
    // functions-framework copies the HTTP traceparent header (Cloud Run's front end sets it,
    // unsampled) into every CloudEvent; continuing it would drop every reconcile's spans.
    expect(traceOf(pubsub(sentinel(), { traceparent: OUTER, tracestate: 'eventarc=2' }))).toEqual(
      {},
    );
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
      ignored: expect.stringContaining('event traceparent'),
    });
  });

  it('takes only strings: a traceparent that is an array or number is ignored, not stringified', () => {
    // String(['00-...']) would be a valid traceparent: the schema checks the type first.
    for (const traceparent of [[INNER], 42, { value: INNER }])
      expect(traceOf(pubsub(sentinel({ traceparent })))).toEqual({
        ignored: expect.stringContaining('event traceparent is not a valid W3C traceparent'),
      });
  });

  it('drops a tracestate that is not a string or longer than 512 characters, keeping the parent', () => {
    expect(traceOf(pubsub(sentinel({ traceparent: INNER, tracestate: ['a=1'] })))).toEqual({
      traceparent: INNER,
    });
    expect(
      traceOf(pubsub(sentinel({ traceparent: INNER, tracestate: `v=${'a'.repeat(600)}` }))),
    ).toEqual({ traceparent: INNER });
  });
});
