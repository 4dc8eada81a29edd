// The reporter's trace boundary: the result message attributes `traceparent` (+ `tracestate`)
// decoded with zod. A valid pair continues the job's trace; anything else is dropped without
// costing the report (a new trace starts instead).
import { decodeReport, messageTrace } from '../../../functions/reporter/report/decode-report';
import { PUBSUB_MESSAGE_PUBLISHED } from '../../../shared/events/decode';
import { RESULT_MESSAGE_TYPE } from '../../../shared/job-result';

const JOB = 'projects/platform-project/locations/us-central1/jobs/pullsecret-job';
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

const result = {
  outcome: 'succeeded',
  operation: 'apply',
  dry_run: false,
  cluster_id: 'cls-1',
  generation: 2,
  phases: ['secret-manager'],
  reason: 'PullSecretProvisioned',
  message: 'done',
  durations_ms: {},
  finished_at: '2026-11-23T18:00:00.000Z',
};

const event = (attributes: Record<string, string> | undefined, data: unknown = result) => ({
  id: 'm-1',
  type: PUBSUB_MESSAGE_PUBLISHED,
  data: {
    message: {
      data: Buffer.from(JSON.stringify(data)).toString('base64'),
      ...(attributes ? { attributes } : {}),
    },
  },
});

describe('decodeReport: the trace a result message continues', () => {
  it('takes traceparent and tracestate from the message attributes, beside the job result', () => {
    const decoded = decodeReport(
      event({
        type: RESULT_MESSAGE_TYPE,
        traceparent: TRACEPARENT,
        tracestate: 'vendor=a1,other=b2',
      }),
      JOB,
    );
    expect(decoded).toMatchObject({
      kind: 'job-result',
      result: { cluster_id: 'cls-1' },
      trace: { traceparent: TRACEPARENT, tracestate: 'vendor=a1,other=b2' },
    });
  });

  it("has no trace when the message names none (a result published without tracing, the log sink's events)", () => {
    const decoded = decodeReport(event({ type: RESULT_MESSAGE_TYPE }), JOB);
    expect(decoded.kind).toBe('job-result');
    expect(decoded.trace).toBeUndefined();
    expect(decodeReport(event(undefined), JOB).trace).toBeUndefined();
  });

  it.each([
    ['not a traceparent', 'not-a-traceparent'],
    ['an all-zero trace id', '00-00000000000000000000000000000000-b7ad6b7169203331-01'],
    ['an all-zero span id', '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01'],
    ['version ff', 'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'],
    ['uppercase hex', '00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01'],
    ['an empty value', ''],
  ])('drops %s and still decodes the report', (_what, traceparent) => {
    const decoded = decodeReport(
      event({ type: RESULT_MESSAGE_TYPE, traceparent, tracestate: 'vendor=a1' }),
      JOB,
    );
    expect(decoded).toMatchObject({ kind: 'job-result', result: { outcome: 'succeeded' } });
    expect(decoded.trace).toBeUndefined();
  });

  it('keeps a valid traceparent but drops an oversized tracestate (W3C: at least 512 characters are propagated)', () => {
    expect(messageTrace({ traceparent: TRACEPARENT, tracestate: `v=${'a'.repeat(600)}` })).toEqual({
      traceparent: TRACEPARENT,
    });
    expect(
      messageTrace({ traceparent: TRACEPARENT, tracestate: `v=${'a'.repeat(500)}` })?.tracestate,
    ).toHaveLength(502);
  });

  it('ignores a tracestate without a traceparent (it means nothing alone)', () => {
    expect(messageTrace({ tracestate: 'vendor=a1' })).toBeUndefined();
  });

  it("carries the trace on a malformed result too, so its warning belongs to the job's trace", () => {
    const decoded = decodeReport(
      event(
        { type: RESULT_MESSAGE_TYPE, traceparent: TRACEPARENT },
        { outcome: 'maybe', cluster_id: 'x' },
      ),
      JOB,
    );
    expect(decoded).toMatchObject({ kind: 'malformed', trace: { traceparent: TRACEPARENT } });
  });
});
