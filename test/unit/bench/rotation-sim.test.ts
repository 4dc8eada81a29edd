// The rotation simulation (bench/fleet/rotation-sim.ts, batch-execution.ts): the figures
// docs/performance.md quotes for a rotated default and the batched resync hold only if the
// simulation paces Connect Gateway, schedules tasks by the job's parallelism and applies every
// cluster once; each test below fails if one of those is dropped.
import fs from 'node:fs';
import path from 'node:path';
import { simulateBatch, type BatchInput } from '../../../bench/fleet/batch-execution';
import {
  DEFAULT_ROTATION_PARAMETERS as P,
  RESYNC_EXECUTIONS_PER_DAY_BOUND,
  TARGET_MINUTES,
} from '../../../bench/fleet/rotation-parameters';
import {
  simulateRotation,
  type JobRunReference,
  type RotationRow,
} from '../../../bench/fleet/rotation-sim';
import { TokenBucket, busiestWindow } from '../../../bench/fleet/token-bucket';
import { ROOT } from '../../helpers/run-process';

const reference = JSON.parse(fs.readFileSync(path.join(ROOT, 'bench/reference.json'), 'utf8')) as {
  sections: { job: { figures: JobRunReference[] }; rotation: { figures: RotationRow[] } };
};
const job = reference.sections.job.figures;
const shape = { secretManager: 4, kubernetes: 2, hyperfleet: 2 };
const batch = (over: Partial<BatchInput> = {}): BatchInput => ({
  clusters: 10_000,
  managementClusters: 200,
  reach: 'direct',
  shape,
  appliedShare: 1,
  startMs: 0,
  latencies: P.latencies,
  ...over,
});
const minutes = (ms: number) => ms / 60_000;

describe('TokenBucket', () => {
  it('hands out reservations at its rate, in the order asked, after its burst', () => {
    const bucket = new TokenBucket(60, 2, 0); // one a second, a burst of two
    expect([0, 0, 0, 0].map(() => bucket.take(0))).toEqual([0, 0, 1_000, 2_000]);
    // Idle long enough, it refills to its capacity and no further.
    expect(bucket.take(10_000)).toBe(10_000);
    expect(bucket.take(10_000)).toBe(10_000);
    expect(bucket.take(10_000)).toBe(11_000);
  });

  it('counts the busiest 60 s of any instants', () => {
    expect(busiestWindow([0, 59_999, 60_000, 61_000, 200_000])).toBe(3);
    expect(busiestWindow([])).toBe(0);
  });
});

describe('one batched execution', () => {
  it('applies every cluster once, in ceil(clusters / clustersPerTask) tasks, and lists each page once', () => {
    const outcome = simulateBatch(batch({ clusters: 1_234, appliedShare: 0.5 }), P);
    expect(outcome.tasks).toBe(3);
    expect(outcome.applied).toBe(617);
    expect(outcome.calls.kubernetes).toBe(617 * shape.kubernetes);
    expect(outcome.calls.secretManager).toBe(617 * shape.secretManager);
    // Each cluster's status read, each applied cluster's own calls, one list call a page.
    expect(outcome.calls.hyperfleet).toBe(1_234 + 617 * shape.hyperfleet + 13);
  });

  it('paces Connect Gateway to its quota: the time is bound by calls / quota, and no 60 s goes over it', () => {
    const direct = simulateBatch(batch(), P);
    const gateway = simulateBatch(batch({ reach: 'connect-gateway' }), P);
    const floor = 20_000 / (P.connectGatewayPerMinute * P.connectGatewayHeadroom);
    expect(minutes(gateway.lastSecretMs)).toBeGreaterThanOrEqual(floor);
    expect(gateway.busiestKubernetesMinute).toBeLessThanOrEqual(P.connectGatewayPerMinute);
    // Reached directly, nothing holds the calls back: an order of magnitude faster.
    expect(minutes(direct.lastSecretMs)).toBeLessThan(floor / 5);
    expect(direct.busiestKubernetesMinute).toBeGreaterThan(P.connectGatewayPerMinute);
  });

  it('runs at most `parallelism` tasks at once: twice the tasks of the parallelism take two waves', () => {
    const twoWaves = simulateBatch(batch({ clusters: 100_000 }), { ...P, parallelism: 100 });
    const oneWave = simulateBatch(batch({ clusters: 100_000 }), { ...P, parallelism: 200 });
    expect(twoWaves.tasks).toBe(200);
    expect(twoWaves.longestTaskMs).toBeCloseTo(oneWave.longestTaskMs, -2);
    expect(twoWaves.endMs - oneWave.endMs).toBeCloseTo(oneWave.longestTaskMs, -3);
  });

  it('bills every task from its container start, and applies `taskConcurrency` clusters at once', () => {
    const one = simulateBatch(batch({ clusters: 500 }), { ...P, taskConcurrency: 1 });
    const four = simulateBatch(batch({ clusters: 500 }), P);
    const work = (o: typeof one) => o.longestTaskMs - P.taskStartMs;
    expect(work(four)).toBeLessThan(work(one) / 3.5);
    expect(four.billedTaskSeconds * 1000).toBeCloseTo(four.longestTaskMs, 0);
  });

  it('shares the gateway over all tasks (the design) or over the running ones, which is faster when tasks wait', () => {
    // Fewer tasks run at once than there are (a region that allows 100): half of them wait.
    const input = batch({ clusters: 100_000, reach: 'connect-gateway' });
    const tasks = simulateBatch(input, { ...P, parallelism: 100 });
    const running = simulateBatch(input, {
      ...P,
      parallelism: 100,
      connectGatewayShare: 'running',
    });
    expect(tasks.perTaskPerMinute * 2).toBeCloseTo(running.perTaskPerMinute);
    expect(running.lastSecretMs).toBeLessThan(0.6 * tasks.lastSecretMs);
    expect(running.busiestKubernetesMinute).toBeLessThanOrEqual(P.connectGatewayPerMinute);
  });

  it('is deterministic', () => {
    const input = batch({ clusters: 3_000, reach: 'connect-gateway' });
    expect(simulateBatch(input, P)).toEqual(simulateBatch(input, P));
  });
});

describe("the issue's targets, in the committed reference", () => {
  const rows = reference.sections.rotation.figures;
  it.each([10_000, 100_000])(
    'a rotated default reaches every management-cluster Secret in time at %d clusters on 200',
    (clusters) => {
      const row = rows.find((r) => r.clusters === clusters)!;
      expect(row.managementClusters).toBe(200);
      expect(row.minutesToAllSecrets).toBeLessThanOrEqual(TARGET_MINUTES[clusters]!);
      expect(row.localCalibration.minutesToAllSecrets).toBeLessThanOrEqual(
        TARGET_MINUTES[clusters]!,
      );
      expect(row.runJobCalls).toBeLessThanOrEqual(P.runJobPerMinute);
    },
  );

  it('the periodic resync at 100,000 clusters is within the bound of executions a day', () => {
    const row = rows.find((r) => r.clusters === 100_000)!;
    expect(row.resync.executionsPerDay).toBeLessThanOrEqual(RESYNC_EXECUTIONS_PER_DAY_BOUND);
  });

  it('is what the simulation gives today (else: BENCH_SECTIONS=rotation npm run bench -- --save-reference)', () => {
    const row = rows.find((r) => r.clusters === 10_000)!;
    expect(simulateRotation(10_000, 200, job)).toEqual(row);
  });
});
