import { FlushTimeouts } from '../../../shared/tracing/flush-timeouts';

describe('FlushTimeouts', () => {
  it('warns the first timeout of a run, skips after three in a row, waits again once answered', () => {
    const timeouts = new FlushTimeouts();
    expect(timeouts.skipping).toBe(false);
    expect(timeouts.timedOut()).toEqual({ warn: true, startsSkipping: false });
    expect(timeouts.timedOut()).toEqual({ warn: false, startsSkipping: false });
    expect(timeouts.skipping).toBe(false);
    expect(timeouts.timedOut()).toEqual({ warn: false, startsSkipping: true });
    expect(timeouts.skipping).toBe(true);
    timeouts.answered();
    expect(timeouts.skipping).toBe(false);
    expect(timeouts.timedOut()).toEqual({ warn: true, startsSkipping: false });
  });
});
