// Background runs (resync, drift repair, a placement move) of a converged cluster: they keep
// Available=True and the place data until they fail or succeed, and a precondition that flaps at
// resync never unconverges the cluster.
import { decide } from '../../../functions/adapter/decision/decide';
import type {
  ClusterFacts,
  DecisionInput,
  DecisionSettings,
} from '../../../functions/adapter/decision/decision';
import { buildStatus } from '../../../shared/status/status-builder';
import type { OwnStatus } from '../../../shared/status/own-status';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString();
const settings: DecisionSettings = {
  resyncIntervalMs: 3600_000,
  executionTimeoutMs: 20 * 60_000,
  retryBackoffBaseMs: 30_000,
  retryBackoffMaxMs: 30 * 60_000,
  permanentFailureRetryMs: 3600_000,
  heartbeatMs: 5 * 60_000,
  executionCheckAfterMs: 3 * 60_000,
  launchCheckAfterMs: 30_000,
  launchStartGraceMs: 300_000,
};
const PLACE = {
  secret_path: 'projects/t/secrets/hyperfleet-pullsecret-cls-1',
  secret_version: '1',
  management_cluster: 'mc-east',
  namespace: 'clusters-cls-1',
  pull_secret_name: 'pull-secret',
};
const cluster = (overrides: Partial<ClusterFacts> = {}): ClusterFacts => ({
  clusterId: 'cls-1',
  clusterName: 'prod',
  generation: 3,
  deleting: false,
  gcpProjectId: 'customer-project',
  keepsPreviousLayout: false,
  namespace: { ok: true, value: 'clusters-cls-1' },
  managementCluster: { ok: true, value: 'mc-east' },
  ...overrides,
});
/** Converged at generation 3, last verified `secondsAgo` (resync due after 3,600 s). */
const converged = (secondsAgo: number, overrides: Partial<OwnStatus> = {}): OwnStatus => ({
  observedGeneration: 3,
  lastReportTime: ago(secondsAgo),
  available: 'True',
  availableReason: 'PullSecretProvisioned',
  availableMessage:
    'Pull secret stored in projects/t/secrets/hyperfleet-pullsecret-cls-1/versions/1',
  appliedReason: 'JobSucceeded',
  health: 'True',
  data: { execution: 'e-1', operation: 'apply', attempt: 1, ...PLACE },
  ...overrides,
});
const input = (overrides: Partial<DecisionInput> = {}): DecisionInput => ({
  event: { eventId: 'e', type: 't', source: 's', clusterId: 'cls-1', generation: 3 },
  cluster: cluster(),
  own: converged(4000),
  preconditions: { kind: 'met' },
  settings: { ...settings, resyncSpreadMs: 0 },
  now: NOW,
  ...overrides,
});

describe('background runs keep a converged cluster Ready', () => {
  it('a resync launches with the converged status kept, at the next attempt', () => {
    const decision = decide(input());
    expect(decision).toMatchObject({ kind: 'launch', reason: 'resync', attempt: 2 });
    if (decision.kind !== 'launch') throw new Error('not a launch');
    expect(decision.kept).toEqual({
      reason: 'PullSecretProvisioned',
      message: expect.stringContaining('versions/1'),
      data: PLACE,
    });
    // What the queued row then says: still Available=True, the place data intact.
    const body = buildStatus(
      {
        kind: 'queued',
        operation: 'apply',
        task: 't',
        attempt: 2,
        since: NOW.toISOString(),
        kept: decision.kept!,
      },
      3,
      NOW,
    );
    expect(body.conditions.find((c) => c.type === 'Available')).toMatchObject({ status: 'True' });
    expect(body.data).toMatchObject(PLACE);
  });

  it('a foreground launch (not converged) keeps nothing', () => {
    const decision = decide(input({ own: undefined }));
    expect(decision).toMatchObject({ kind: 'launch', reason: 'first-event' });
    expect(decision).not.toHaveProperty('kept');
  });

  it.each([
    [{ kind: 'not-met', name: 'dnsAvailable', message: 'dns is not ready' }, 'not met'],
    [{ kind: 'error', name: 'p', message: 'boom' }, 'could not be evaluated'],
  ] as const)(
    'a precondition that flaps at resync leaves the converged status alone (%#)',
    (pre, words) => {
      const decision = decide(input({ preconditions: pre }));
      expect(decision).toMatchObject({ kind: 'skip', reason: 'background-deferred' });
      expect(decision.message).toContain(words);
    },
  );

  it('a background run in flight is watched: queued, then checked with Cloud Tasks', () => {
    const queued = converged(10, {
      appliedReason: 'JobQueued',
      data: { ...PLACE, task: 't-2', operation: 'apply', attempt: 2, launched_at: ago(10) },
    });
    expect(decide(input({ own: queued }))).toMatchObject({ kind: 'skip', reason: 'in-flight' });
    const old = { ...queued, data: { ...queued.data, launched_at: ago(45) } };
    const check = decide(input({ own: old }));
    expect(check).toMatchObject({ kind: 'check-task', task: 't-2', attempt: 2 });
    if (check.kind !== 'check-task') throw new Error('not a check');
    expect(check.kept?.data).toMatchObject(PLACE);
    // Lost (Cloud Tasks dispatched it, no execution reported its start): relaunched, still kept.
    expect(decide(input({ own: old, lost: 't-2' }))).toMatchObject({
      kind: 'launch',
      attempt: 3,
      kept: { data: PLACE },
    });
  });

  it('a refused background run (Health=False, kept) waits for the permanent-failure interval', () => {
    const refused = converged(60, {
      appliedReason: 'PermissionDenied',
      health: 'False',
      data: { ...PLACE, operation: 'apply', failure_kind: 'permanent', attempt: 2 },
    });
    expect(decide(input({ own: refused }))).toMatchObject({
      kind: 'skip',
      reason: 'failed-permanently',
    });
    expect(decide(input({ own: { ...refused, lastReportTime: ago(3601) } }))).toMatchObject({
      kind: 'launch',
      attempt: 3,
    });
  });

  it('a placement move is acted on at the next event, as a background run', () => {
    const moved = decide(
      input({
        own: converged(10),
        cluster: cluster({ managementCluster: { ok: true, value: 'mc-west' } }),
      }),
    );
    expect(moved).toMatchObject({
      kind: 'launch',
      reason: 'placement-changed',
      managementCluster: 'mc-west',
      kept: { data: { management_cluster: 'mc-east' } },
    });
    expect(moved.message).toContain('from management cluster mc-east to mc-west');
    // Placement naming no cluster (the job's default) is not a move.
    expect(
      decide(input({ own: converged(10), cluster: cluster({ managementCluster: { ok: true } }) })),
    ).toMatchObject({ kind: 'skip', reason: 'up-to-date' });
  });

  it('the attempt stays on record through a not-met report, so a relaunch never reuses one', () => {
    const failedThenNotMet = {
      observedGeneration: 3,
      lastReportTime: ago(600),
      available: 'False',
      availableReason: 'JobFailed',
      health: 'False',
      data: { operation: 'apply', failure_kind: 'transient', attempt: 4 },
    } satisfies OwnStatus;
    const report = decide(
      input({
        own: failedThenNotMet,
        preconditions: { kind: 'not-met', name: 'dns', message: 'dns is not ready' },
      }),
    );
    expect(report).toMatchObject({ kind: 'report', outcome: { kind: 'not-met', attempt: 4 } });
  });
});
