import { buildStatus, shortName } from '../../../shared/status/status-builder';
import type { StatusOutcome } from '../../../shared/status/outcome';
import { readOwnStatus } from '../../../shared/status/own-status';

import { ALL_OUTCOMES, execution, now, timing } from '../../fixtures/status-outcomes';

describe('buildStatus', () => {
  it.each(Object.entries(ALL_OUTCOMES))(
    '%s: mandatory conditions with non-empty reasons and messages, no last_transition_time',
    (_name, outcome) => {
      const body = buildStatus(outcome, 4, now);
      expect(body).toMatchObject({
        adapter: 'pullsecret',
        observed_generation: 4,
        observed_time: now.toISOString(),
      });
      const types = body.conditions.map((c) => c.type);
      expect(types).toEqual(expect.arrayContaining(['Applied', 'Available', 'Health']));
      expect(new Set(types).size).toBe(types.length);
      for (const c of body.conditions) {
        expect(c.reason.length).toBeGreaterThan(0);
        expect(c.message.length).toBeGreaterThan(0);
        expect(c).not.toHaveProperty('last_transition_time');
      }
    },
  );

  const status = (outcome: StatusOutcome) =>
    Object.fromEntries(
      buildStatus(outcome, 1, now).conditions.map((c) => [c.type, `${c.status}/${c.reason}`]),
    );

  it('follows the pattern table of the contract', () => {
    expect(status(ALL_OUTCOMES.notMet!)).toEqual({
      Applied: 'False/PreconditionsNotMet',
      Available: 'False/PreconditionsNotMet',
      Health: 'True/NoErrors',
    });
    expect(status(ALL_OUTCOMES.preconditionError!)).toMatchObject({
      Health: 'False/ExecutionFailed:preconditions',
    });
    expect(status(ALL_OUTCOMES.launched!)).toEqual({
      Applied: 'True/JobLaunched',
      Available: 'False/JobRunning',
      Health: 'True/NoErrors',
    });
    expect(status(ALL_OUTCOMES.queued!)).toEqual({
      Applied: 'True/JobQueued',
      Available: 'False/JobQueued',
      Health: 'True/NoErrors',
    });
    // A background run of a converged cluster keeps it Available (and Ready) while it runs.
    expect(status(ALL_OUTCOMES.queuedBackground!)).toEqual({
      Applied: 'True/JobQueued',
      Available: 'True/PullSecretProvisioned',
      Health: 'True/NoErrors',
    });
    expect(status(ALL_OUTCOMES.launchedDelete!)).toMatchObject({
      Finalized: 'False/CleanupInProgress',
    });
    expect(status(ALL_OUTCOMES.succeeded!)).toEqual({
      Applied: 'True/JobSucceeded',
      Available: 'True/PullSecretProvisioned',
      Health: 'True/NoErrors',
    });
    expect(status(ALL_OUTCOMES.failedPermanent!)).toEqual({
      Applied: 'True/JobExecuted',
      Available: 'False/InvalidPullSecret',
      Health: 'False/InvalidPullSecret',
    });
    expect(status(ALL_OUTCOMES.failedTransient!)).toMatchObject({
      Available: 'False/JobFailed',
      Health: 'False/JobFailed',
      Finalized: 'False/JobFailed',
    });
    expect(status(ALL_OUTCOMES.finalized!)).toEqual({
      Applied: 'False/CleanupConfirmed',
      Available: 'False/CleanupConfirmed',
      Health: 'True/NoErrors',
      Finalized: 'True/CleanupConfirmed',
    });
  });

  it('records the queued launch in data, and the adapter reads it back', () => {
    const body = buildStatus(ALL_OUTCOMES.queued!, 3, now);
    expect(body.data).toEqual({
      task: (ALL_OUTCOMES.queued as Extract<StatusOutcome, { kind: 'queued' }>).task,
      operation: 'apply',
      attempt: 1,
      launched_at: timing.startedAt,
      launch_reason: 'first-event',
    });
    const own = readOwnStatus([
      {
        ...body,
        conditions: body.conditions.map((c) => ({ ...c })),
        data: { ...body.data },
        created_time: now.toISOString(),
        last_report_time: now.toISOString(),
      },
    ]);
    expect(own).toMatchObject({ appliedReason: 'JobQueued', availableReason: 'JobQueued' });
  });

  it('a background run keeps the place data HyperShift reads, under the run fields', () => {
    const body = buildStatus(ALL_OUTCOMES.queuedBackground!, 3, now);
    expect(body.data).toMatchObject({
      management_cluster: 'mc-east',
      namespace: 'clusters-c1',
      pull_secret_name: 'pull-secret',
      attempt: 2,
      launch_reason: 'resync',
    });
    const available = body.conditions.find((c) => c.type === 'Available');
    expect(available?.message).toContain('versions/1');
  });

  it('records why a launch was made, and the attempt a success holds the claim with', () => {
    const intent: StatusOutcome = {
      kind: 'queued',
      operation: 'apply',
      task: 'projects/p/locations/l/queues/q/tasks/t-a2',
      attempt: 2,
      since: timing.startedAt!,
      launchReason: 'drift-reported',
    };
    const body = buildStatus(intent, 3, now);
    expect(body.data).toMatchObject({ launch_reason: 'drift-reported' });
    const success = {
      ...(ALL_OUTCOMES.succeeded as Extract<StatusOutcome, { kind: 'succeeded' }>),
      attempt: 2,
    };
    expect(buildStatus(success, 3, now).data).toMatchObject({ attempt: 2 });
    const own = readOwnStatus([
      {
        ...body,
        conditions: body.conditions.map((c) => ({ ...c })),
        data: { ...body.data },
        created_time: now.toISOString(),
        last_report_time: now.toISOString(),
      },
    ]);
    expect(own?.data.launch_reason).toBe('drift-reported');
  });

  it('puts what HyperShift and the adapter need in data and metadata', () => {
    const body = buildStatus(ALL_OUTCOMES.succeeded!, 3, now);
    expect(body.data).toEqual({
      execution,
      operation: 'apply',
      secret_path: 'projects/p/secrets/hyperfleet-c-pull-secret',
      secret_version: '3',
      kubernetes_secret: { namespace: 'clusters-c', name: 'c-pull-secret' },
      namespace: 'clusters-c',
      pull_secret_name: 'c-pull-secret',
      pull_secret_sha256_prefix: 'abcdef012345',
    });
    expect(body.metadata).toEqual({
      job_name: 'pullsecret-job-abc12',
      started_time: timing.startedAt,
      completed_time: timing.completedAt,
      duration: '42s',
    });
    expect(shortName(execution)).toBe('pullsecret-job-abc12');
  });

  it('round-trips through readOwnStatus', () => {
    const body = buildStatus(ALL_OUTCOMES.failedPermanent!, 5, now);
    const own = readOwnStatus([
      { ...body, conditions: body.conditions.map((c) => ({ ...c })), data: { ...body.data } },
    ]);
    expect(own).toMatchObject({
      observedGeneration: 5,
      available: 'False',
      health: 'False',
      data: { failure_kind: 'permanent', execution, attempt: 1 },
    });
    expect(
      readOwnStatus([{ adapter: 'dns', observed_generation: 1, conditions: [] }]),
    ).toBeUndefined();
  });
});
