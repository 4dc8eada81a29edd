import type { Decision, DecisionSettings } from '../../../functions/adapter/decision/decision';
import {
  resolveExecution,
  resolveTask,
} from '../../../functions/adapter/decision/resolve-in-flight';
import { GrpcStatus } from '../../../shared/gcp/grpc-status';
import type { ExecutionSummary } from '../../../shared/executions/execution-reader';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString();
const settings = {
  executionTimeoutMs: 25 * 60_000,
  executionCheckAfterMs: 3 * 60_000,
  launchCheckAfterMs: 30_000,
  launchStartGraceMs: 300_000,
} as DecisionSettings;
const JOB = 'projects/p/locations/l/jobs/pullsecret-job';

const queued = (secondsAgo: number): Extract<Decision, { kind: 'check-task' }> => ({
  kind: 'check-task',
  task: 'projects/p/locations/l/queues/q/tasks/t-1',
  operation: 'apply',
  attempt: 1,
  queuedAt: ago(secondsAgo),
  message: 'm',
});
const check: Extract<Decision, { kind: 'check-execution' }> = {
  kind: 'check-execution',
  execution: `${JOB}/executions/e-1`,
  operation: 'apply',
  attempt: 2,
  launchedAt: ago(5 * 60),
  message: 'm',
};
const summary = (overrides: Partial<ExecutionSummary>): ExecutionSummary => ({
  name: `${JOB}/executions/e-1`,
  env: { CLUSTER_ID: 'cls-1', GENERATION: '3', OPERATION: 'apply', LAUNCH_ATTEMPT: '2' },
  startTime: ago(290),
  succeeded: false,
  cancelled: false,
  message: '',
  ...overrides,
});

describe('resolveTask (a launch queued too long, after GetTask)', () => {
  it('is refused when RunJob answered a permanent error (403, 404, 400, 401)', () => {
    for (const code of [
      GrpcStatus.PERMISSION_DENIED,
      GrpcStatus.NOT_FOUND,
      GrpcStatus.INVALID_ARGUMENT,
      GrpcStatus.UNAUTHENTICATED,
    ]) {
      const task = { dispatchCount: 1, lastAttempt: { code, message: 'denied' } };
      expect(resolveTask(queued(40), task, settings, NOW)).toMatchObject({
        kind: 'refused',
        attempt: { code },
      });
    }
  });
  it('waits for the queue while RunJob is retried for quota or 5xx, or not dispatched yet', () => {
    for (const code of [GrpcStatus.RESOURCE_EXHAUSTED, GrpcStatus.UNAVAILABLE]) {
      const task = { dispatchCount: 2, lastAttempt: { code, message: 'later' } };
      expect(resolveTask(queued(40), task, settings, NOW)).toMatchObject({ kind: 'wait' });
    }
    expect(resolveTask(queued(40), { dispatchCount: 0 }, settings, NOW)).toMatchObject({
      kind: 'wait',
      message: expect.stringContaining('not dispatched yet'),
    });
  });
  it('waits for the start report of a dispatched task, then relaunches past the grace', () => {
    expect(resolveTask(queued(40), undefined, settings, NOW)).toMatchObject({ kind: 'wait' });
    expect(resolveTask(queued(301), undefined, settings, NOW)).toMatchObject({
      kind: 'relaunch',
      lost: queued(0).task,
    });
  });
});

describe('resolveExecution (a long-silent execution, after GetExecution)', () => {
  it('relaunches when the execution no longer exists', () => {
    expect(resolveExecution(check, undefined, settings, NOW)).toMatchObject({
      kind: 'relaunch',
      lost: check.execution,
    });
  });
  it('waits while Cloud Run says it runs, flagging it overdue past the execution timeout', () => {
    expect(resolveExecution(check, summary({}), settings, NOW)).toMatchObject({
      kind: 'wait',
      overdue: false,
    });
    expect(
      resolveExecution({ ...check, launchedAt: ago(30 * 60) }, summary({}), settings, NOW),
    ).toMatchObject({ kind: 'wait', overdue: true });
  });
  it('reports a finished execution exactly as the reporter would: success', () => {
    const resolution = resolveExecution(
      check,
      summary({ succeeded: true, completionTime: ago(200) }),
      settings,
      NOW,
    );
    expect(resolution).toMatchObject({
      kind: 'report',
      generation: 3,
      observedAt: ago(290),
      outcome: { kind: 'succeeded', execution: check.execution },
    });
  });
  it('reports a failed execution as a transient failure of its attempt (backoff, then attempt+1)', () => {
    const resolution = resolveExecution(
      check,
      summary({
        completionTime: ago(200),
        message: 'Task e-1-task0 failed',
        executionReason: 'NON_ZERO_EXIT_CODE',
      }),
      settings,
      NOW,
    );
    expect(resolution).toMatchObject({
      kind: 'report',
      outcome: { kind: 'failed', failureKind: 'transient', attempt: 2 },
    });
  });
});
