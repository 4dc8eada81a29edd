import { measureNodeProcess } from './measure-process';
import { percentile, round } from './stats';

/** `node -e 0` on this machine: what any Node process costs before our code runs. */
export interface FloorFigures {
  readonly node: string;
  readonly wallMsP50: number;
  readonly peakRssMb: number;
}

/**
 * The floor every figure is divided by, measured in the same run and the same way (a child process,
 * the same usage preload), so results from machines of different speed compare as ratios.
 */
export async function benchFloor(runs: number): Promise<FloorFigures> {
  const walls: number[] = [];
  let rss = 0;
  for (let i = 0; i < runs; i++) {
    const run = await measureNodeProcess('-e', ['0'], { PATH: process.env.PATH });
    walls.push(run.wallMs);
    rss = Math.max(rss, run.maxRssMb);
  }
  return {
    node: nodeBinaryVersion(),
    wallMsP50: round(percentile(walls, 50)),
    peakRssMb: round(rss),
  };
}

/** The Node the measured processes run on (BENCH_NODE, e.g. Node 22, or this one). */
export function nodeBinaryVersion(): string {
  return process.env.BENCH_NODE ? `BENCH_NODE=${process.env.BENCH_NODE}` : process.version;
}

/** `value` as a multiple of the floor's. */
export const ratio = (value: number, floor: number) => round(value / floor, 2);
