import type { AdapterFigures } from './adapter-bench';
import type { ColdStartFigures } from './cold-start';
import { ratio, type FloorFigures } from './floor';
import type { JobRunFigures } from './job-bench';

/** A launch that waited any settle interval would take longer than this (the old one was 1 s). */
const NO_SETTLE_BOUND_MS = 100;

/** One row of issue 17's targets: the measured value, its ratio to the floor, met or not. */
export interface TargetRow {
  readonly figure: string;
  readonly measured: string;
  readonly 'x floor': number | string;
  readonly target: string;
  readonly met: 'yes' | 'NO';
}

interface Measured {
  readonly floor: FloorFigures;
  readonly job?: readonly JobRunFigures[];
  readonly adapter?: readonly AdapterFigures[];
  readonly coldStart?: readonly ColdStartFigures[];
}

/** The targets table, for the sections that ran. Wall and RSS figures are also given as a multiple of `node -e 0`. */
export function targetRows({ floor, job, adapter, coldStart }: Measured): TargetRow[] {
  const rows: TargetRow[] = [];
  const mb = (value: number, max: number, figure: string) =>
    rows.push({
      figure,
      measured: `${value} MB`,
      'x floor': ratio(value, floor.peakRssMb),
      target: `<= ${max} MB`,
      met: value <= max ? 'yes' : 'NO',
    });
  const ms = (value: number, max: number, figure: string) =>
    rows.push({
      figure,
      measured: `${value} ms`,
      'x floor': ratio(value, floor.wallMsP50),
      target: `<= ${max} ms`,
      met: value <= max ? 'yes' : 'NO',
    });
  if (job && job.length > 0) {
    mb(Math.max(...job.map((j) => j.maxRssMb)), 90, 'job peak RSS (any run)');
    const unchanged = job.find((j) => j.kind === 'unchanged');
    if (unchanged) ms(unchanged.wallMsP50, 350, 'job wall, unchanged run (p50)');
  }
  for (const cold of coldStart ?? []) ms(cold.loadMsP50, 120, `${cold.module} module load (p50)`);
  for (const cold of coldStart ?? [])
    mb(cold.peakRssMb, 75, `${cold.module} peak RSS after first event`);
  const scenario = (name: AdapterFigures['scenario'], concurrency: number) =>
    adapter?.find((a) => a.scenario === name && a.concurrency === concurrency);
  const upToDate = scenario('up-to-date', 1);
  if (upToDate)
    rows.push({
      figure: 'adapter, up-to-date, concurrency 1',
      measured: `${upToDate.eventsPerSecond} ev/s, p99 ${upToDate.p99Ms} ms`,
      'x floor': '',
      target: '>= 1000 ev/s, p99 <= 5 ms',
      met: upToDate.eventsPerSecond >= 1000 && upToDate.p99Ms <= 5 ? 'yes' : 'NO',
    });
  // A launch is one CreateTask in the queue and a status write.
  const launch = scenario('launch', 50);
  if (launch)
    rows.push({
      figure: 'adapter, launch, concurrency 50',
      measured: `${launch.eventsPerSecond} ev/s`,
      'x floor': '',
      target: '>= 400 ev/s',
      met: launch.eventsPerSecond >= 400 ? 'yes' : 'NO',
    });
  // Issue 37: the launch path no longer waits a settle interval (LAUNCH_SETTLE_INTERVAL was 1 s).
  const single = scenario('launch', 1);
  if (single)
    rows.push({
      figure: 'adapter, launch latency (p50, concurrency 1)',
      measured: `${single.p50Ms} ms`,
      'x floor': '',
      target: `< ${NO_SETTLE_BOUND_MS} ms (no settle wait; it was 1,000 ms)`,
      met: single.p50Ms < NO_SETTLE_BOUND_MS ? 'yes' : 'NO',
    });
  return rows;
}
