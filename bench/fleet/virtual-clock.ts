/**
 * Simulated time: every component of the fleet simulation reads `now` from here. Each read moves
 * time on by 1 ms, so that what happens later (a job's result) is never stamped earlier than what
 * caused it (the launch report), as in real time.
 */
export class VirtualClock {
  constructor(private current: number) {}

  readonly now = (): Date => new Date(this.current++);

  ms(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
