import path from 'node:path';
import { formatEvent, timelineEvents } from '../../../emulators/pullsecret/stack/timeline';

const launched = (file: string) =>
  timelineEvents({
    source: path.join('/tmp/stack/logs', file),
    json: {
      message: 'Queued launch task projects/p/locations/l/queues/q/tasks/ab12-c1-g1-apply-a1',
      metadata: {
        cluster_id: 'c1',
        decision: 'launch-queued',
        task: 'projects/p/locations/l/queues/q/tasks/ab12-c1-g1-apply-a1',
      },
    },
  });

describe('local timeline with several adapter instances', () => {
  it("reads each instance's log as the adapter, tagged with the instance", () => {
    expect(launched('adapter-2.log')).toEqual([
      {
        component: 'adapter',
        text: 'launch queued: ab12-c1-g1-apply-a1',
        clusterId: 'c1',
        instance: 2,
      },
    ]);
    expect(launched('adapter-proxy.log')).toEqual([]);
  });

  it('shows the instance in text and JSON', () => {
    const [event] = launched('adapter-1.log');
    expect(formatEvent(event!, 1500, false, new Map([['c1', 'demo']]))).toMatch(
      /^\+\s+1\.5s {2}adapter#1 {2}\[demo\] launch queued: ab12-c1-g1-apply-a1$/,
    );
    expect(JSON.parse(formatEvent(event!, 1500, true, new Map()))).toMatchObject({
      component: 'adapter',
      instance: 1,
      event: 'launch queued: ab12-c1-g1-apply-a1',
    });
  });
});
