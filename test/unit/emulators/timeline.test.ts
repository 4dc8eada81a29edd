import path from 'node:path';
import { formatEvent, timelineEvents } from '../../../emulators/pullsecret/stack/timeline';

const launched = (file: string) =>
  timelineEvents({
    source: path.join('/tmp/stack/logs', file),
    json: {
      message: 'Launched execution projects/p/locations/l/jobs/j/executions/j-abc',
      metadata: { cluster_id: 'c1', execution: 'projects/p/locations/l/jobs/j/executions/j-abc' },
    },
  });

describe('local timeline with several adapter instances', () => {
  it("reads each instance's log as the adapter, tagged with the instance", () => {
    expect(launched('adapter-2.log')).toEqual([
      { component: 'adapter', text: 'execution launched: j-abc', clusterId: 'c1', instance: 2 },
    ]);
    expect(launched('adapter-proxy.log')).toEqual([]);
  });

  it('shows the instance in text and JSON', () => {
    const [event] = launched('adapter-1.log');
    expect(formatEvent(event!, 1500, false, new Map([['c1', 'demo']]))).toMatch(
      /^\+\s+1\.5s {2}adapter#1 {2}\[demo\] execution launched: j-abc$/,
    );
    expect(JSON.parse(formatEvent(event!, 1500, true, new Map()))).toMatchObject({
      component: 'adapter',
      instance: 1,
      event: 'execution launched: j-abc',
    });
  });
});
