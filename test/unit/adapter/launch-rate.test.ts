import {
  bucketShape,
  launchPriority,
  LaunchRate,
  type LaunchPriority,
} from '../../../functions/adapter/cloud-run/launch-rate';

/** A clock the test moves by hand. */
const clock = (start = 0) => {
  let ms = start;
  return { now: () => ms, advance: (by: number) => void (ms += by) };
};

/** Launches granted per step of `stepMs` over `totalMs`, taking whenever a token is there. */
function drain(rate: LaunchRate, time: ReturnType<typeof clock>, totalMs: number, stepMs = 100) {
  const grants: number[] = [];
  for (let t = 0; t <= totalMs; t += stepMs) {
    while (rate.take('new-work').kind === 'granted') grants.push(time.now());
    time.advance(stepMs);
  }
  return grants;
}

/** The most grants inside any window of `windowMs`. */
function busiestWindow(grants: readonly number[], windowMs = 60_000): number {
  let most = 0;
  for (let i = 0, j = 0; j < grants.length; j++) {
    while (grants[j]! - grants[i]! >= windowMs) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}

describe('launch rate: a token bucket per instance', () => {
  it("divides the region's budget by the instances: a sixth as burst, the rest as refill", () => {
    expect(bucketShape({ perMinute: 180, instances: 1 })).toEqual({
      burst: 30,
      refillPerMinute: 150,
    });
    expect(bucketShape({ perMinute: 180, instances: 10 })).toEqual({
      burst: 3,
      refillPerMinute: 15,
    });
    expect(bucketShape({ perMinute: 0, instances: 10 })).toBeUndefined();
    expect(() => new LaunchRate({ perMinute: 10, instances: 10 })).toThrow(/no refill/);
  });

  it.each([
    [180, 1],
    [30, 1],
    [120, 10],
    [7, 3],
  ])(
    'never grants more than the share in any 60 s window (%i/min over %i instances)',
    (perMinute, instances) => {
      const time = clock();
      const rate = new LaunchRate({ perMinute, instances }, time.now);
      const grants = drain(rate, time, 10 * 60_000);
      const share = perMinute / instances;
      expect(busiestWindow(grants)).toBeLessThanOrEqual(Math.floor(share));
      // And it spends the refill: over ten minutes ten refills and the burst. (The burst is the
      // price of the window bound: small when the share is 10 or more, half of a share of 2.)
      const { burst, refillPerMinute } = bucketShape({ perMinute, instances })!;
      expect(grants.length).toBeGreaterThanOrEqual(Math.floor(burst + refillPerMinute * 10 * 0.98));
    },
  );

  it('says how long until the next token', () => {
    const time = clock();
    const rate = new LaunchRate({ perMinute: 30, instances: 1 }, time.now); // burst 5, 25/min
    for (let i = 0; i < 5; i++) expect(rate.take('new-work')).toEqual({ kind: 'granted' });
    const wait = rate.take('new-work');
    expect(wait).toEqual({ kind: 'wait', ms: Math.ceil(60_000 / 25) });
    time.advance(Math.ceil(60_000 / 25));
    expect(rate.take('new-work')).toEqual({ kind: 'granted' });
  });

  it('lets background launches (resync, drift-reported) take only from a full bucket: they yield to new work', () => {
    expect(launchPriority('resync')).toBe('background');
    expect(launchPriority('drift-reported')).toBe('background');
    for (const reason of ['first-event', 'new-generation', 'retry'])
      expect(launchPriority(reason)).toBe('new-work');
    const time = clock();
    const rate = new LaunchRate({ perMinute: 60, instances: 1 }, time.now); // burst 10, 50/min
    expect(rate.take('new-work')).toEqual({ kind: 'granted' });
    // Nine tokens left: new work may launch, a resync waits for the tenth to come back.
    const background = rate.take('background');
    expect(background.kind).toBe('wait');
    expect(rate.take('new-work')).toEqual({ kind: 'granted' });
    time.advance(3 * Math.ceil(60_000 / 50));
    expect(rate.take('background')).toEqual({ kind: 'granted' });
  });

  it('pauses every launch after a quota refusal, doubling to the minute, until a launch goes through', () => {
    const time = clock();
    const rate = new LaunchRate({ perMinute: 0, instances: 1 }, time.now); // no rate: only the pause
    expect(rate.take('new-work')).toEqual({ kind: 'granted' });
    const pauses = [rate.exhausted(), rate.exhausted(), rate.exhausted(), rate.exhausted()];
    expect(pauses).toEqual([10_000, 20_000, 40_000, 60_000]);
    const priorities: LaunchPriority[] = ['new-work', 'background'];
    for (const priority of priorities)
      expect(rate.take(priority)).toEqual({ kind: 'wait', ms: 60_000 });
    time.advance(60_000);
    expect(rate.take('new-work')).toEqual({ kind: 'granted' });
    rate.succeeded();
    expect(rate.exhausted()).toBe(10_000);
  });

  it('empties the bucket on a refusal, so a rate set above the real quota backs off', () => {
    const time = clock();
    const rate = new LaunchRate({ perMinute: 120, instances: 1 }, time.now);
    rate.exhausted();
    time.advance(10_000);
    // Ten seconds of refill at 100/min: 16.7 tokens' worth, of a burst of 20.
    const granted = drain(rate, time, 0);
    expect(granted).toHaveLength(16);
  });
});
