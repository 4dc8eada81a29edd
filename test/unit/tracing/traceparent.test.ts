import { ROOT_CONTEXT, context, trace } from '@opentelemetry/api';
import {
  contextFromTraceparent,
  currentTraceparent,
  currentTracestate,
  formatTraceparent,
  parseTraceparent,
} from '../../../shared/tracing/traceparent';
import { startTracing } from '../../../shared/tracing/start';
import { loadTracingConfig } from '../../../shared/tracing/config';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const SPAN = 'b7ad6b7169203331';

describe('parseTraceparent', () => {
  it.each([
    [`00-${TRACE}-${SPAN}-01`, { traceId: TRACE, spanId: SPAN, sampled: true }],
    [`00-${TRACE}-${SPAN}-00`, { traceId: TRACE, spanId: SPAN, sampled: false }],
    [`00-${TRACE}-${SPAN}-03`, { traceId: TRACE, spanId: SPAN, sampled: true }],
    // A later version may add fields; the spec says to parse what version 00 defines.
    [`01-${TRACE}-${SPAN}-01-extra`, { traceId: TRACE, spanId: SPAN, sampled: true }],
    [` 00-${TRACE}-${SPAN}-01 `, { traceId: TRACE, spanId: SPAN, sampled: true }],
  ])('reads %s', (text, expected) => {
    expect(parseTraceparent(text)).toEqual(expected);
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['garbage', 'not-a-traceparent'],
    ['all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['version 00 with extra fields', `00-${TRACE}-${SPAN}-01-extra`],
    ['uppercase hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['short trace id', `00-${TRACE.slice(2)}-${SPAN}-01`],
  ])('rejects %s', (_name, text) => {
    expect(parseTraceparent(text)).toBeUndefined();
  });

  it('formats what it parses', () => {
    for (const text of [`00-${TRACE}-${SPAN}-01`, `00-${TRACE}-${SPAN}-00`])
      expect(formatTraceparent(parseTraceparent(text)!)).toBe(text);
  });
});

describe('contextFromTraceparent (export off)', () => {
  beforeAll(async () => {
    await startTracing(loadTracingConfig({}, 'test'));
  });

  it('continues a valid remote parent, with its tracestate', () => {
    const parent = contextFromTraceparent(`00-${TRACE}-${SPAN}-01`, 'vendor=abc,other=1');
    expect(trace.getSpanContext(parent)).toMatchObject({
      traceId: TRACE,
      spanId: SPAN,
      traceFlags: 1,
      isRemote: true,
    });
    context.with(parent, () => {
      expect(currentTraceparent()).toBe(`00-${TRACE}-${SPAN}-01`);
      expect(currentTracestate()).toBe('vendor=abc,other=1');
    });
  });

  it('starts a new unsampled root with random ids when the traceparent is absent or invalid', () => {
    const first = trace.getSpanContext(contextFromTraceparent(undefined));
    const second = trace.getSpanContext(contextFromTraceparent('00-zz-bad-01'));
    expect(first?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(first?.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(first?.traceFlags).toBe(0);
    expect(second?.traceId).not.toBe(first?.traceId);
  });

  it('has no traceparent outside any span', () => {
    context.with(ROOT_CONTEXT, () => {
      expect(currentTraceparent()).toBeUndefined();
      expect(currentTracestate()).toBeUndefined();
    });
  });
});
