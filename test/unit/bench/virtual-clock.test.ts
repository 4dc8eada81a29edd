import { VirtualClock } from '../../../bench/fleet/virtual-clock';

describe('VirtualClock (fleet simulation)', () => {
  it('moves 1 ms per read within a step, so later reads are stamped later', () => {
    const clock = new VirtualClock(1_000);
    clock.advance(5);
    expect([1, 2, 3].map(() => clock.now().getTime())).toEqual([1_005, 1_006, 1_007]);
  });

  it('never moves past the step end: a busy step does not push the next one', () => {
    const clock = new VirtualClock(0);
    clock.advance(5);
    const reads = Array.from({ length: 10 }, () => clock.now().getTime());
    expect(reads).toEqual([5, 6, 7, 8, 9, 9, 9, 9, 9, 9]);
    clock.advance(5);
    expect(clock.ms()).toBe(10);
    expect(clock.now().getTime()).toBe(10);
  });

  it('stays still before the first step and never goes backwards', () => {
    const clock = new VirtualClock(100);
    expect([clock.now().getTime(), clock.now().getTime()]).toEqual([100, 100]);
    let last = 100;
    for (let step = 0; step < 3; step++) {
      clock.advance(3);
      for (let read = 0; read < 5; read++) {
        const at = clock.now().getTime();
        expect(at).toBeGreaterThanOrEqual(last);
        last = at;
      }
    }
  });

  it('moves on to an instant within the step, never back and never to its end', () => {
    const clock = new VirtualClock(0);
    clock.advance(1_000);
    clock.moveTo(1_500);
    expect(clock.ms()).toBe(1_500);
    clock.moveTo(1_200);
    expect(clock.ms()).toBe(1_500);
    clock.moveTo(5_000);
    expect(clock.ms()).toBe(1_999);
  });
});
