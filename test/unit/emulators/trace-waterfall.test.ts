import {
  bar,
  renderWaterfall,
  waterfallRows,
} from '../../../emulators/pullsecret/traces/waterfall';
import { RECONCILE_SPANS, TRACE_ID } from '../../fixtures/traces/reconcile';

describe('the terminal waterfall of a trace', () => {
  it('draws spans in tree order with offsets, durations, bars, status and the decision attributes', () => {
    expect(renderWaterfall(TRACE_ID, RECONCILE_SPANS, { barWidth: 20 })).toEqual([
      'Trace 4bf92f3577b34da6a3ce929d0e0e4736: 10 span(s), 340.0 ms, services hyperfleet-sentinel, pullsecret-adapter, pullsecret-job, pullsecret-reporter, hyperfleet-api',
      ' START ms     DUR ms  WATERFALL               STATUS  SERVICE              SPAN                                                                        DETAILS',
      '      0.0        2.0  |█                   |          hyperfleet-sentinel  sentinel.publish',
      '      5.0      100.0  |███████             |  ok      pullsecret-adapter   └─ adapter.handle                                                           decision=launch reason=GenerationAhead',
      '     10.0        1.0  |█                   |          pullsecret-adapter      ├─ adapter.decide',
      '     20.0       40.0  | ███                |          pullsecret-adapter      └─ cloudrun.RunJob',
      '     70.0      230.0  |    ██████████████  |  ok      pullsecret-job             └─ job.run                                                            reason=VersionAdded outcome=applied',
      '    280.0       10.0  |                ██  |          pullsecret-job                └─ pubsub.publish_result',
      '    295.0       45.0  |                 ███|          pullsecret-reporter              └─ reporter.handle                                              outcome=applied',
      '    300.0       20.0  |                 ██ |          pullsecret-reporter                 └─ PUT /api/hyperfleet/v1/clusters/{cluster_id}/statuses     http=201',
      '    305.0       10.0  |                 ██ |          hyperfleet-api                         └─ PUT /api/hyperfleet/v1/clusters/{cluster_id}/statuses  http=201',
      '    330.0        1.5  |                   █|  ERROR   pullsecret-adapter   adapter.handle                                                              decision=skip error=HyperFleetUnavailable parent=00000000000000ff',
    ]);
  });

  it('orders by the tree, not by arrival; a span whose parent was not recorded is a root naming it', () => {
    const rows = waterfallRows(RECONCILE_SPANS);
    expect(rows.map((r) => `${r.depth} ${r.span.spanId.slice(-2)}`)).toEqual([
      '0 01',
      '1 02',
      '2 03',
      '2 04',
      '3 05',
      '4 06',
      '5 07',
      '6 08',
      '7 09',
      '0 0a',
    ]);
    expect(rows.at(-1)?.details).toEqual({
      decision: 'skip',
      error: 'HyperFleetUnavailable',
      parent: '00000000000000ff',
    });
  });

  it('survives a cycle, an empty trace and a span that ends before it starts', () => {
    const [a, b] = RECONCILE_SPANS.slice(1, 3);
    const cycle = [
      { ...a!, spanId: '00000000000000a1', parentSpanId: '00000000000000b1' },
      { ...b!, spanId: '00000000000000b1', parentSpanId: '00000000000000a1' },
    ];
    expect(waterfallRows(cycle).map((r) => `${r.depth} ${r.span.spanId.slice(-2)}`)).toEqual([
      '0 b1',
      '1 a1',
    ]);
    expect(waterfallRows([])).toEqual([]);
    const backwards = { ...b!, endUnixNano: '1' };
    expect(waterfallRows([backwards])[0]?.durationMs).toBe(0);
  });

  it('draws at least one cell for the shortest span and keeps every bar inside its frame', () => {
    expect(bar(0, 0, 10)).toBe('|█         |');
    expect(bar(1, 1, 10)).toBe('|         █|');
    expect(bar(0.25, 0.5, 8)).toBe('|  ██    |');
    expect(bar(0, 1, 4)).toBe('|████|');
  });
});
