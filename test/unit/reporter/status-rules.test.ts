import {
  concludesInFlight,
  failureStanding,
  recordStart,
} from '../../../functions/reporter/report/status-rules';
import type { JobStarted } from '../../../shared/job-result';
import type { OwnStatus } from '../../../shared/status/own-status';
import type { PlannedReport } from '../../../shared/status/planned-report';

const JOB = 'projects/p/locations/l/jobs/j';
const now = new Date('2026-11-23T12:00:00.000Z');
const started: JobStarted = {
  cluster_id: 'c1',
  generation: 3,
  operation: 'apply',
  attempt: 2,
  execution: 'exec-b',
  started_at: '2026-11-23T11:59:59.000Z',
};
const own = (appliedReason: string, data: OwnStatus['data'], generation = 3): OwnStatus => ({
  observedGeneration: generation,
  lastReportTime: '2026-11-23T12:00:00.500Z',
  available: 'False',
  appliedReason,
  data,
});
const failure = (execution: string, attempt = 2): PlannedReport => ({
  clusterId: 'c1',
  generation: 3,
  observedAt: now.toISOString(),
  outcome: {
    kind: 'failed',
    operation: 'apply',
    execution: `${JOB}/executions/${execution}`,
    reason: 'JobFailed',
    message: 'failed',
    failureKind: 'transient',
    attempt,
  },
});

describe('recordStart: only over the queued row of the same operation and attempt', () => {
  it.each([
    // Before the adapter's queued row landed: retried (handle-report throws), never dropped.
    ['no status', undefined, 'start-before-queued'],
    ['an older generation', own('JobSucceeded', {}, 2), 'start-before-queued'],
    [
      'the previous attempt still on record',
      own('JobExecuted', { operation: 'apply', attempt: 1 }),
      'start-before-queued',
    ],
    [
      'a newer generation',
      own('JobQueued', { operation: 'apply', attempt: 1 }, 4),
      'start-of-older-launch',
    ],
    [
      'a newer attempt queued',
      own('JobQueued', { operation: 'apply', attempt: 3 }),
      'start-of-older-launch',
    ],
    [
      'already finished',
      own('JobSucceeded', { attempt: 2, execution: `${JOB}/executions/exec-b` }),
      'start-after-finish',
    ],
    [
      'the same start again',
      own('JobLaunched', { operation: 'apply', attempt: 2, execution: `${JOB}/executions/exec-b` }),
      'start-already-recorded',
    ],
    [
      'another execution of the task',
      own('JobLaunched', { operation: 'apply', attempt: 2, execution: `${JOB}/executions/exec-a` }),
      'start-of-stray-execution',
    ],
    [
      'a delete queued',
      own('JobQueued', { operation: 'delete', attempt: 2 }),
      'start-after-finish',
    ],
  ])('%s: %s', (_name, status, decision) => {
    expect(recordStart(started, status, JOB, now)).toMatchObject({ decision });
  });

  it('writes launched strictly after the queued row it read', () => {
    const decided = recordStart(
      started,
      own('JobQueued', { operation: 'apply', attempt: 2, task: 'q/tasks/t' }),
      JOB,
      now,
    );
    expect(decided).toMatchObject({
      plan: {
        outcome: { kind: 'launched', execution: `${JOB}/executions/exec-b`, task: 'q/tasks/t' },
      },
      observedTime: new Date('2026-11-23T12:00:00.501Z'),
    });
  });
});

describe('failureStanding and concludesInFlight', () => {
  it.each([
    ['no status', undefined, 'report'],
    ['another generation', own('JobSucceeded', { execution: 'exec-a' }, 2), 'report'],
    ['names it (short form)', own('JobLaunched', { execution: 'exec-b', attempt: 2 }), 'report'],
    [
      'names it (full form)',
      own('JobLaunched', { execution: `${JOB}/executions/exec-b` }),
      'report',
    ],
    ['no execution, same attempt', own('JobQueued', { attempt: 2 }), 'report'],
    ['no execution, another attempt', own('JobQueued', { attempt: 3 }), 'claim-decides'],
    [
      'names another execution',
      own('JobSucceeded', { execution: `${JOB}/executions/exec-a`, attempt: 2 }),
      'claim-decides',
    ],
  ])('%s: %s', (_name, status, standing) => {
    expect(failureStanding(failure('exec-b'), status)).toBe(standing);
  });

  it('a report concludes only the in-flight row of its own launch', () => {
    expect(
      concludesInFlight(failure('exec-b'), own('JobLaunched', { execution: 'exec-b', attempt: 2 })),
    ).toBe(true);
    expect(concludesInFlight(failure('exec-b'), own('JobQueued', { attempt: 2 }))).toBe(true);
    expect(concludesInFlight(failure('exec-b'), own('JobQueued', { attempt: 3 }))).toBe(false);
    expect(
      concludesInFlight(failure('exec-b'), own('JobExecuted', { execution: 'exec-b', attempt: 2 })),
    ).toBe(false);
  });
});
