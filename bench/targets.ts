import { parseDurationMs } from '../shared/config/durations';
import type { AdapterFigures } from './adapter-bench';
import type { ColdStartFigures } from './cold-start';
import { ratio, type FloorFigures } from './floor';
import type { JobRunFigures } from './job-bench';

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
  const scenario = (name: AdapterFigures['scenario'], concurrency: number, settle?: string) =>
    adapter?.find(
      (a) =>
        a.scenario === name &&
        a.concurrency === concurrency &&
        (settle === undefined || a.launchSettle === settle),
    );
  const upToDate = scenario('up-to-date', 1);
  if (upToDate)
    rows.push({
      figure: 'adapter, up-to-date, concurrency 1',
      measured: `${upToDate.eventsPerSecond} ev/s, p99 ${upToDate.p99Ms} ms`,
      'x floor': '',
      target: '>= 1000 ev/s, p99 <= 5 ms',
      met: upToDate.eventsPerSecond >= 1000 && upToDate.p99Ms <= 5 ? 'yes' : 'NO',
    });
  // The adapter's own launch cost, without the settle wait.
  const launch = scenario('launch', 50, '0s');
  if (launch)
    rows.push({
      figure: 'adapter, launch, concurrency 50, settle 0s',
      measured: `${launch.eventsPerSecond} ev/s`,
      'x floor': '',
      target: '>= 400 ev/s',
      met: launch.eventsPerSecond >= 400 ? 'yes' : 'NO',
    });
  // Issue 28: a launch's latency grows by at most the settle interval (1 s by default).
  const before = scenario('launch', 1, '0s');
  const settled = adapter?.find(
    (a) => a.scenario === 'launch' && a.concurrency === 1 && a.launchSettle !== '0s',
  );
  if (before && settled) {
    const settleMs = parseDurationMs(settled.launchSettle) ?? 0;
    const grew = Math.round((settled.p50Ms - before.p50Ms) * 100) / 100;
    rows.push({
      figure: `adapter, launch latency added by the ${settled.launchSettle} settle (p50, concurrency 1)`,
      measured: `+${grew} ms`,
      'x floor': '',
      target: `<= ${settleMs} ms + 10%`,
      met: grew <= settleMs * 1.1 ? 'yes' : 'NO',
    });
  }
  return rows;
}
