/**
 * Simulated time: every component of the fleet simulation reads `now` from here. Time moves in
 * steps (`advance`); within a step each read moves it on by 1 ms, so that what happens later (a
 * job's result) is stamped later than what caused it (the launch report), as in real time, but
 * never past the step's end: from there on reads return the same last millisecond. Reads therefore
 * never push the schedule: step k starts at start + k x step, however many clusters the step
 * handled (with 1 ms per read and nothing else, 10,000 clusters made one 5 s step last minutes of
 * simulated time, long enough for launch grace periods to expire and jobs to be launched twice).
 */
export class VirtualClock {
  private stepStart: number;
  /** Reads never move time to this instant or past it. */
  private stepEnd: number;

  constructor(private current: number) {
    this.stepStart = current;
    this.stepEnd = current + 1;
  }

  readonly now = (): Date => {
    const at = new Date(this.current);
    if (this.current + 1 < this.stepEnd) this.current++;
    return at;
  };

  ms(): number {
    return this.current;
  }

  /**
   * Moves time on to `ms` within the current step (never back, never to the step's end): the
   * launch queue's dispatches happen at their own instants inside a step (fleet-stack.ts).
   */
  moveTo(ms: number): void {
    this.current = Math.max(this.current, Math.min(ms, this.stepEnd - 1));
  }

  /** Starts the next step, `ms` after the start of the current one. */
  advance(ms: number): void {
    this.stepStart += ms;
    this.stepEnd = this.stepStart + ms;
    this.current = this.stepStart;
  }
}
