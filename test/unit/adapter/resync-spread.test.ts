import { createHash, randomUUID } from 'node:crypto';
import {
  defaultResyncSpreadMs,
  resyncDueAfterMs,
  resyncOffsetMs,
} from '../../../functions/adapter/decision/resync-spread';
import { decide } from '../../../functions/adapter/decision/decide';
import type { DecisionInput } from '../../../functions/adapter/decision/decision';

const HOUR = 3600_000;
const INTERVAL = 24 * HOUR;
const SPREAD = defaultResyncSpreadMs(INTERVAL);

/**
 * UUID-shaped ids as random-looking as randomUUID's, but the same on every run: with truly random
 * ids the ±30 % bounds below fail about once in a few thousand runs (a bucket's count is binomial,
 * σ ≈ 13 around 200), which made this test flaky; a fixed set either spreads or does not.
 */
const uuidOf = (i: number): string => {
  const hex = createHash('sha256').update(`resync-spread-${i}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

describe('resync spread', () => {
  it('defaults to a quarter of the interval', () => {
    expect(SPREAD).toBe(6 * HOUR);
  });

  it('is deterministic per cluster, within the window, and off at 0', () => {
    expect(resyncOffsetMs('cls-1', SPREAD)).toBe(resyncOffsetMs('cls-1', SPREAD));
    expect(resyncOffsetMs('cls-1', 0)).toBe(0);
    for (const id of ['a', 'cls-1', 'cls-2', randomUUID()]) {
      const offset = resyncOffsetMs(id, SPREAD);
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThan(SPREAD);
      expect(resyncDueAfterMs(id, INTERVAL, SPREAD)).toBe(INTERVAL + offset);
    }
  });

  it.each([
    ['random-looking UUIDs', () => Array.from({ length: 2000 }, (_, i) => uuidOf(i))],
    ['sequential ids', () => Array.from({ length: 2000 }, (_, i) => `cluster-${i}`)],
  ])('spreads 2,000 clusters provisioned at the same moment over the window (%s)', (_, ids) => {
    // Each cluster comes due at provisioning + its due-after; count them per tenth of the window.
    const buckets = new Array<number>(10).fill(0);
    for (const id of ids()) {
      const due = resyncDueAfterMs(id, INTERVAL, SPREAD) - INTERVAL;
      buckets[Math.floor((due / SPREAD) * 10)]!++;
    }
    // 200 expected per bucket: none empty, none a burst (within ±30 %).
    for (const count of buckets) {
      expect(count).toBeGreaterThan(140);
      expect(count).toBeLessThan(260);
    }
    // The busiest minute of the window holds a handful, not the burst of 2,000.
    const perMinute = new Map<number, number>();
    for (const id of ids()) {
      const minute = Math.floor((resyncDueAfterMs(id, INTERVAL, SPREAD) - INTERVAL) / 60_000);
      perMinute.set(minute, (perMinute.get(minute) ?? 0) + 1);
    }
    expect(Math.max(...perMinute.values())).toBeLessThan(20);
  });

  it('is what the decision uses: a converged cluster resyncs after interval + its offset', () => {
    const id = 'cls-spread';
    const dueAfter = resyncDueAfterMs(id, INTERVAL, SPREAD);
    const now = new Date('2026-11-26T12:00:00.000Z');
    const at = (ageMs: number): DecisionInput => ({
      event: { eventId: 'e', type: 't', source: 's', clusterId: id, generation: 1 },
      cluster: {
        clusterId: id,
        clusterName: 'c',
        generation: 1,
        deleting: false,
        gcpProjectId: 'p',
        keepsPreviousLayout: false,
        namespace: { ok: true, value: `clusters-${id}` },
        managementCluster: { ok: true },
      },
      own: {
        observedGeneration: 1,
        lastReportTime: new Date(now.getTime() - ageMs).toISOString(),
        available: 'True',
        data: {},
      },
      preconditions: { kind: 'met' },
      settings: {
        resyncIntervalMs: INTERVAL,
        resyncSpreadMs: SPREAD,
        executionTimeoutMs: 1,
        retryBackoffBaseMs: 1,
        retryBackoffMaxMs: 1,
        permanentFailureRetryMs: 1,
        heartbeatMs: 1,
        executionCheckAfterMs: 1,
        launchCheckAfterMs: 1,
        launchStartGraceMs: 1,
      },
      now,
    });
    expect(decide(at(dueAfter - 1000))).toMatchObject({ kind: 'skip', reason: 'up-to-date' });
    expect(decide(at(dueAfter))).toMatchObject({ kind: 'launch', reason: 'resync' });
  });
});
