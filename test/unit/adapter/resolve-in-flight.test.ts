import type { Decision, DecisionSettings } from '../../../functions/adapter/decision/decision';
import {
  matchLaunch,
  type LaunchQuery,
} from '../../../functions/adapter/cloud-run/execution-lookup';
import {
  resolveExecution,
  resolveIntent,
} from '../../../functions/adapter/decision/resolve-in-flight';
import type { ExecutionSummary } from '../../../shared/executions/execution-reader';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString();
const settings = {
  executionTimeoutMs: 25 * 60_000,
  executionCheckAfterMs: 3 * 60_000,
  launchGraceMs: 190_000,
} as DecisionSettings;
const JOB = 'projects/p/locations/l/jobs/pullsecret-job';

const intent = (
  secondsAgo: number,
  abandoned = false,
): Extract<Decision, { kind: 'resolve-launch' }> => ({
  kind: 'resolve-launch',
  launchId: 'launch-1',
  operation: 'apply',
  attempt: 1,
  since: ago(secondsAgo),
  abandoned,
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

describe('resolveIntent (an intent without an execution, after ListExecutions)', () => {
  it('adopts the execution found', () => {
    const found = { execution: `${JOB}/executions/e-1`, createTime: ago(10) };
    expect(resolveIntent(intent(20), found, settings, NOW)).toMatchObject({ kind: 'adopt', found });
  });
  it('waits while another instance may still be inside its RunJob', () => {
    expect(resolveIntent(intent(20), undefined, settings, NOW)).toMatchObject({ kind: 'wait' });
  });
  it('relaunches once the grace is over, or at once when the intent was abandoned', () => {
    expect(resolveIntent(intent(200), undefined, settings, NOW)).toMatchObject({
      kind: 'relaunch',
      lost: 'launch-1',
    });
    expect(resolveIntent(intent(5, true), undefined, settings, NOW)).toMatchObject({
      kind: 'relaunch',
      message: expect.stringContaining('abandoned'),
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

describe('matchLaunch', () => {
  const query: LaunchQuery = {
    launchId: 'launch-1',
    clusterId: 'cls-1',
    generation: 3,
    operation: 'apply',
    attempt: 2,
    since: ago(10),
  };
  it.each<[string, Record<string, string>, string]>([
    ['our launch id', { LAUNCH_ID: 'launch-1' }, 'launch-id'],
    [
      'another launch of the same work (cluster, generation, operation, attempt)',
      {
        LAUNCH_ID: 'x',
        CLUSTER_ID: 'cls-1',
        GENERATION: '3',
        OPERATION: 'apply',
        LAUNCH_ATTEMPT: '2',
      },
      'same-work',
    ],
    [
      'an earlier attempt',
      { CLUSTER_ID: 'cls-1', GENERATION: '3', OPERATION: 'apply', LAUNCH_ATTEMPT: '1' },
      'none',
    ],
    [
      'another generation',
      { CLUSTER_ID: 'cls-1', GENERATION: '2', OPERATION: 'apply', LAUNCH_ATTEMPT: '2' },
      'none',
    ],
    [
      'another operation',
      { CLUSTER_ID: 'cls-1', GENERATION: '3', OPERATION: 'delete', LAUNCH_ATTEMPT: '2' },
      'none',
    ],
    ['another cluster', { CLUSTER_ID: 'cls-2', GENERATION: '3', LAUNCH_ATTEMPT: '2' }, 'none'],
  ])('%s', (_name, env, expected) => {
    expect(matchLaunch(env, query)).toBe(expected);
  });
});
