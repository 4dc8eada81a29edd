import { simulateBurst } from '../../../bench/fleet/fleet-quota';

// The launch queue holds the fleet-wide launch rate (issue 37): however many adapter instances
// share the events, RunJob reaches Cloud Run at the queue's rate, once per cluster.
describe('fleet simulation: a burst of new clusters through the launch queue', () => {
  it.each([2, 10])(
    '200 new clusters, %i adapter instances, queue at 30/min under a 30/min RunJob quota: the rate holds, nothing is refused, one execution per cluster',
    async (instances) => {
      const burst = await simulateBurst(200, {
        quotaPerMinute: 30,
        queueRatePerMinute: 30,
        instances,
      });
      expect(burst.converged).toBe(200);
      expect(burst.executions).toBe(200);
      expect(burst.dispatches).toBe(200);
      expect(burst.busiestMinute).toBeLessThanOrEqual(30);
      expect(burst.runJobRefused).toBe(0);
      // 200 dispatches at one every 2 s take 400 s: about 7 minutes, whatever the instances.
      expect(burst.minutesToConverge).toBeGreaterThanOrEqual(6.5);
      expect(burst.minutesToConverge).toBeLessThan(8);
    },
    120_000,
  );
});
