// A batch task's pacing of Connect Gateway (functions/pull-secret-job/batch/connect-gateway-pacing.ts):
// its share of the fleet's quota, and the decision to wait, on a fake clock: a cluster behind
// Connect Gateway waits for its calls' tokens, one reached directly never does.
import {
  CONNECT_GATEWAY_HEADROOM,
  CONNECT_GATEWAY_REQUESTS_PER_MINUTE,
  ConnectGatewayPacer,
  KUBERNETES_CALLS_PER_CLUSTER,
  callsToPace,
  taskPacing,
  type PacingClock,
} from '../../../functions/pull-secret-job/batch/connect-gateway-pacing';
import type { KubernetesAccess } from '../../../functions/pull-secret-job/kubernetes/kubernetes-access';
import { DEFAULT_ROTATION_PARAMETERS } from '../../../bench/fleet/rotation-parameters';

const GATEWAY: KubernetesAccess = {
  kind: 'google',
  endpoint:
    'https://connectgateway.googleapis.com/v1/projects/123456789/locations/global/gkeMemberships/mgmt-1',
};
const REGIONAL_GATEWAY: KubernetesAccess = {
  kind: 'google',
  endpoint:
    'https://us-central1-connectgateway.googleapis.com/v1/projects/123456789/locations/us-central1/gkeMemberships/mgmt-2',
};
const GKE: KubernetesAccess = { kind: 'google', endpoint: 'https://34.1.2.3', caPem: 'PEM' };
const GKE_DNS: KubernetesAccess = {
  kind: 'google',
  endpoint: 'https://gke-abc.us-central1.gke.goog',
};
const KUBECONFIG: KubernetesAccess = { kind: 'kubeconfig', path: '/tmp/kubeconfig' };

/**
 * A clock that moves only when a wait is slept (one caller at a time), or not at all (callers
 * that all ask at the same instant).
 */
function fakeClock(advancesOnSleep = true): PacingClock & { slept: number[] } {
  let now = 1_000_000;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: (ms) => {
      slept.push(ms);
      if (advancesOnSleep) now += ms;
      return Promise.resolve();
    },
  };
}

describe('Connect Gateway pacing of a batch task', () => {
  it("takes 95 % of the fleet's quota split over CLOUD_RUN_TASK_COUNT tasks, with a 3 s burst", () => {
    const pacing = taskPacing(2_400, 20);
    expect(pacing.perTaskPerMinute).toBeCloseTo(114);
    expect(pacing.burst).toBeCloseTo(5.7);
    // All tasks' bursts and a minute at the paced rate stay under the quota.
    const tasks = 200;
    const one = taskPacing(2_400, tasks);
    expect(tasks * (one.perTaskPerMinute + one.burst)).toBeLessThan(2_400);
  });

  it("is the bench's figure: one constant for the default quota and the headroom", () => {
    expect(CONNECT_GATEWAY_REQUESTS_PER_MINUTE).toBe(2_400);
    expect(DEFAULT_ROTATION_PARAMETERS.connectGatewayPerMinute).toBe(
      CONNECT_GATEWAY_REQUESTS_PER_MINUTE,
    );
    expect(DEFAULT_ROTATION_PARAMETERS.connectGatewayHeadroom).toBe(CONNECT_GATEWAY_HEADROOM);
  });

  it('paces only management clusters reached through Connect Gateway (global or regional)', () => {
    expect(callsToPace(GATEWAY)).toBe(KUBERNETES_CALLS_PER_CLUSTER);
    expect(callsToPace(REGIONAL_GATEWAY)).toBe(2);
    expect(callsToPace(GKE)).toBe(0);
    expect(callsToPace(GKE_DNS)).toBe(0);
    expect(callsToPace(KUBECONFIG)).toBe(0);
    // A run that writes no Kubernetes Secret (no namespace, SKIP_KUBERNETES) makes no call.
    expect(callsToPace(undefined)).toBe(0);
  });

  it('holds a Connect Gateway cluster once the burst is spent, at the rate, and sums the waits', async () => {
    const clock = fakeClock();
    // 60 a minute (1 a second), a burst of 3: 2 calls a cluster.
    const pacer = new ConnectGatewayPacer({ perTaskPerMinute: 60, burst: 3 }, clock);
    expect(await pacer.before(GATEWAY)).toBe(0);
    expect(await pacer.before(GATEWAY)).toBe(1_000);
    expect(await pacer.before(GATEWAY)).toBe(2_000);
    expect(clock.slept).toEqual([1_000, 2_000]);
    expect(pacer.pacedMs).toBe(3_000);
  });

  it('never holds a cluster reached directly, even when the gateway bucket is empty', async () => {
    const clock = fakeClock();
    const pacer = new ConnectGatewayPacer({ perTaskPerMinute: 60, burst: 2 }, clock);
    await pacer.before(GATEWAY);
    for (const direct of [GKE, GKE_DNS, KUBECONFIG, undefined])
      expect(await pacer.before(direct)).toBe(0);
    expect(clock.slept).toEqual([]);
    expect(pacer.pacedMs).toBe(0);
  });

  it('queues concurrent clusters behind one another: 4 at once through the gateway go 2 s apart', async () => {
    const clock = fakeClock(false);
    const pacer = new ConnectGatewayPacer({ perTaskPerMinute: 60, burst: 2 }, clock);
    const waits = await Promise.all([1, 2, 3, 4].map(() => pacer.before(GATEWAY)));
    expect(waits).toEqual([0, 2_000, 4_000, 6_000]);
    expect(pacer.pacedMs).toBe(12_000);
  });
});
