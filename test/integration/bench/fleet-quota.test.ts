import { simulateBurst } from '../../../bench/fleet/fleet-quota';

describe('fleet simulation: a burst of new clusters under the RunJob quota', () => {
  it('200 new clusters under a 30/min quota: the cap holds, nothing is refused, every cluster converges', async () => {
    const burst = await simulateBurst(200, { quotaPerMinute: 30, launchRatePerMinute: 30 });
    expect(burst.converged).toBe(200);
    expect(burst.executions).toBe(200);
    expect(burst.busiestMinute).toBeLessThanOrEqual(30);
    expect(burst.runJobRefused).toBe(0);
    // 200 launches at 30 a minute (a burst of 5, then 25 a minute) take about 8 minutes.
    expect(burst.minutesToConverge).toBeGreaterThanOrEqual(6);
    expect(burst.minutesToConverge).toBeLessThan(10);
  }, 300_000);
});
