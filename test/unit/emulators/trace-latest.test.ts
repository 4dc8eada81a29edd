import { chooseLatestTrace } from '../../../emulators/pullsecret/traces/latest-reconcile';
import { renderTraceList, summarizeTraces } from '../../../emulators/pullsecret/traces/trace-list';
import type { StoredSpan } from '../../../emulators/traces/stored-span';

const entry = (traceId: string, name: string, startUnixNano: string) => ({
  traceId,
  spanId: '0000000000000001',
  name,
  service: 's',
  startUnixNano,
});
const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const C = 'c'.repeat(32);
const D = 'd'.repeat(32);

describe('the latest reconcile of a cluster', () => {
  it('is the newest trace that launched or ran an execution, not the newer skip traces after it', () => {
    // Sentinel re-publishes while the cluster is not Ready; the adapter skips (in flight, up to date).
    expect(
      chooseLatestTrace([
        entry(A, 'adapter.handle', '100'),
        entry(A, 'cloudrun.RunJob', '110'),
        entry(B, 'adapter.handle', '200'),
        entry(C, 'adapter.handle', '300'),
      ]),
    ).toBe(A);
    // The job's own span counts too (its launch span may not have arrived yet).
    expect(
      chooseLatestTrace([
        entry(A, 'cloudrun.RunJob', '110'),
        entry(D, 'job.run', '400'),
        entry(C, 'adapter.handle', '500'),
      ]),
    ).toBe(D);
  });

  it('is the newest reporter status write when no execution is in the store, before any skip', () => {
    expect(
      chooseLatestTrace([
        entry(A, 'reporter.handle', '100'),
        entry(B, 'adapter.handle', '200'),
        entry(C, 'sentinel.publish', '300'),
      ]),
    ).toBe(A);
  });

  it('falls back to the newest adapter.handle, then to the newest span naming the cluster, none when nothing did', () => {
    expect(
      chooseLatestTrace([
        entry(A, 'adapter.handle', '100'),
        entry(B, 'adapter.handle', '200'),
        entry(C, 'sentinel.publish', '300'),
      ]),
    ).toBe(B);
    expect(
      chooseLatestTrace([
        entry(C, 'sentinel.publish', '300'),
        entry(D, 'sentinel.publish', '1000000000000000000000'),
      ]),
    ).toBe(D);
    expect(chooseLatestTrace([])).toBeUndefined();
  });
});

describe("a cluster's trace list", () => {
  const span = (traceId: string, name: string, attributes: StoredSpan['attributes'] = {}) =>
    ({
      traceId,
      spanId: '0000000000000001',
      name,
      kind: 'INTERNAL',
      service: 's',
      startUnixNano: '0',
      endUnixNano: '0',
      status: { code: 'UNSET' },
      attributes,
    }) satisfies StoredSpan;

  it('lists each trace once, newest first, with its start, the adapter decision and its span count', () => {
    const spans: Record<string, StoredSpan[]> = {
      [A]: [span(A, 'adapter.handle', { 'pullsecret.decision': 'launch' }), span(A, 'job.run')],
      [B]: [span(B, 'adapter.handle', { 'pullsecret.decision': 'skip' })],
      [C]: [span(C, 'sentinel.publish')],
    };
    const list = summarizeTraces(
      [
        entry(A, 'adapter.handle', '1000000000000000000'),
        entry(A, 'job.run', '1000000005000000000'),
        entry(B, 'adapter.handle', '1000000010000000000'),
        entry(C, 'sentinel.publish', '1000000020000000000'),
      ],
      (id) => spans[id] ?? [],
      2,
    );
    expect(list).toEqual([
      { traceId: C, startedAt: '2001-09-09T01:47:00.000Z', decision: undefined, spanCount: 1 },
      { traceId: B, startedAt: '2001-09-09T01:46:50.000Z', decision: 'skip', spanCount: 1 },
    ]);
    expect(renderTraceList(list)).toEqual([
      `2001-09-09T01:47:00.000Z  ${C}  -             1 span`,
      `2001-09-09T01:46:50.000Z  ${B}  skip          1 span`,
    ]);
  });
});
