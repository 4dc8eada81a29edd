import { simulateFleet } from '../../../bench/fleet/fleet-sim';

describe('fleet simulation (bench --clusters)', () => {
  it('provisions every cluster once and only the changed ones again, all converged', async () => {
    const fleet = await simulateFleet(20, 0.1);
    const [first, second] = fleet.runs;
    expect(fleet.changedClusters).toBe(2);
    expect(first).toMatchObject({
      converged: 20,
      executions: 20,
      secretManagerVersions: 20,
      kubernetesWrites: 20,
      eventsDelivered: 40, // at creation, then Sentinel's 30-minute re-check
    });
    expect(second).toMatchObject({
      converged: 20,
      executions: 2,
      secretManagerVersions: 2,
      kubernetesWrites: 2,
    });
    // Sentinel's polling: every 5 s for an hour, one page of 100 clusters each time.
    expect(first?.sentinelListCalls).toBe(720);
  }, 120_000);
});
