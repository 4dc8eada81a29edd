import { decide } from '../../../functions/adapter/decision/decide';
import type {
  ClusterFacts,
  DecisionInput,
  DecisionSettings,
} from '../../../functions/adapter/decision/decision';
import {
  compileDriftCondition,
  DEFAULT_DRIFT_REPORTED_CONDITION,
  type DriftResult,
} from '../../../functions/adapter/decision/drift-condition';
import type { PreconditionContext } from '../../../functions/adapter/decision/preconditions';
import { ConfigError } from '../../../shared/errors';
import type { OwnStatus } from '../../../shared/status/own-status';

const NOW = new Date('2026-11-26T12:00:00.000Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString();
const settings: DecisionSettings = {
  resyncIntervalMs: 24 * 3600_000,
  resyncSpreadMs: 0,
  driftRepairBackoffMs: 5 * 60_000,
  executionTimeoutMs: 20 * 60_000,
  retryBackoffBaseMs: 30_000,
  retryBackoffMaxMs: 30 * 60_000,
  permanentFailureRetryMs: 3600_000,
  heartbeatMs: 5 * 60_000,
  executionCheckAfterMs: 3 * 60_000,
  launchCheckAfterMs: 30_000,
  launchStartGraceMs: 300_000,
};
const cluster: ClusterFacts = {
  clusterId: 'cls-1',
  clusterName: 'prod-cluster',
  generation: 3,
  deleting: false,
  gcpProjectId: 'customer-project',
  keepsPreviousLayout: false,
  namespace: { ok: true, value: 'clusters-cls-1' },
  managementCluster: { ok: true },
};
/** Our status: provisioned at generation 3, last run ended `seconds` ago. */
const provisioned = (seconds: number, overrides: Partial<OwnStatus> = {}): OwnStatus => ({
  observedGeneration: 3,
  lastReportTime: ago(seconds),
  available: 'True',
  availableReason: 'PullSecretProvisioned',
  health: 'True',
  data: { execution: 'exec-1', operation: 'apply' },
  ...overrides,
});
const REPORTED: DriftResult = { kind: 'reported' };
const input = (overrides: Partial<DecisionInput> = {}): DecisionInput => ({
  event: {
    eventId: 'e1',
    type: 'com.redhat.hyperfleet.cluster.reconcile',
    source: 'hyperfleet-sentinel',
    clusterId: 'cls-1',
    generation: 3,
  },
  cluster,
  own: provisioned(3600),
  preconditions: { kind: 'met' },
  drift: REPORTED,
  settings,
  now: NOW,
  ...overrides,
});

describe('the drift-reported rule', () => {
  it('launches a repair at once when drift is reported for a cluster provisioned at this generation', () => {
    const decision = decide(input());
    // With an attempt above the success's (which holds the job's claim), so the job writes.
    expect(decision).toMatchObject({
      kind: 'launch',
      operation: 'apply',
      reason: 'drift-reported',
      attempt: 2,
    });
    expect(decision.message).toContain('drift');
  });

  it('leaves a converged cluster alone without a drift report (or when the condition failed)', () => {
    for (const drift of [{ kind: 'none' }, { kind: 'error', message: 'x' }] as DriftResult[])
      expect(decide(input({ drift }))).toMatchObject({ kind: 'skip', reason: 'up-to-date' });
    expect(decide(input({ drift: undefined }))).toMatchObject({
      kind: 'skip',
      reason: 'up-to-date',
    });
  });

  it('repairs at once a drift that turned False after our last run ended (deleted after convergence)', () => {
    // Converged 20 s ago; HyperShift saw the Secret missing 10 s ago: a new drift, not a stale one.
    const fresh: DriftResult = { kind: 'reported', since: ago(10) };
    expect(decide(input({ own: provisioned(20), drift: fresh }))).toMatchObject({
      kind: 'launch',
      reason: 'drift-reported',
    });
    // The same report, turned False before our last run ended: the back-off spaces the repairs.
    const stale: DriftResult = { kind: 'reported', since: ago(30) };
    expect(decide(input({ own: provisioned(20), drift: stale }))).toMatchObject({
      kind: 'skip',
      reason: 'drift-repair-backoff',
    });
  });

  it('does not repair again within the back-off window of our last run (at most one per window)', () => {
    const decision = decide(input({ own: provisioned(20) }));
    expect(decision).toMatchObject({ kind: 'skip', reason: 'drift-repair-backoff' });
    expect(decision.message).toMatch(/repaired in 280 s/);
    // Repeated events in the window: every one decides the same.
    for (let s = 21; s < 300; s += 37)
      expect(decide(input({ own: provisioned(s) }))).toMatchObject({
        reason: 'drift-repair-backoff',
      });
    expect(decide(input({ own: provisioned(300) }))).toMatchObject({ reason: 'drift-reported' });
  });

  it('is not the rule for a status at an older generation: that is a new-generation launch', () => {
    expect(decide(input({ own: provisioned(20, { observedGeneration: 2 }) }))).toMatchObject({
      kind: 'launch',
      reason: 'new-generation',
    });
  });

  it('waits for a repair already in flight (same exactly-once guards as any launch)', () => {
    // A background repair keeps Available=True while it runs: in flight all the same.
    const running = provisioned(5, {
      appliedReason: 'JobLaunched',
      data: { execution: 'exec-2', operation: 'apply', launched_at: ago(5), attempt: 2 },
    });
    expect(decide(input({ own: running }))).toMatchObject({ kind: 'skip', reason: 'in-flight' });
    const queued = provisioned(0, {
      appliedReason: 'JobQueued',
      data: { task: 't-2', operation: 'apply', launched_at: ago(60), attempt: 2 },
    });
    expect(decide(input({ own: queued }))).toMatchObject({ kind: 'check-task', task: 't-2' });
  });

  it('leaves failures to their own back-off and deletions to their own rules', () => {
    const failed = provisioned(10, {
      available: 'False',
      availableReason: 'SecretManagerUnavailable',
      health: 'False',
      data: { operation: 'apply', failure_kind: 'transient', attempt: 1 },
    });
    expect(decide(input({ own: failed }))).toMatchObject({ kind: 'skip', reason: 'backing-off' });
    expect(decide(input({ cluster: { ...cluster, deleting: true } }))).toMatchObject({
      kind: 'launch',
      operation: 'delete',
    });
  });

  it('leaves the converged status alone when a launch could not go ahead (no not-met report over it)', () => {
    const unmet = { kind: 'not-met', name: 'dnsAvailable', message: 'm' } as const;
    for (const overrides of [
      { cluster: { ...cluster, gcpProjectId: undefined } },
      { cluster: { ...cluster, namespace: { ok: false, problem: 'p' } as const } },
      { preconditions: unmet },
    ] as Partial<DecisionInput>[])
      expect(decide(input(overrides))).toMatchObject({ kind: 'skip', reason: 'up-to-date' });
  });
});

/** The statuses as CEL sees them (statusesByAdapter), with a hypershift status of these conditions. */
const context = (hypershift: Record<string, unknown> | undefined): PreconditionContext => ({
  cluster: { id: 'cls-1', generation: 3, spec: {} },
  statuses: {
    pullsecret: { adapter: 'pullsecret', observed_generation: 3, conditions: [] },
    ...(hypershift ? { hypershift: { adapter: 'hypershift', ...hypershift } } : {}),
  },
  event: { id: 'e1' },
  pullSecret: { inSpec: true, additionalInSpec: false, defaultConfigured: false },
});
const cond = (type: string, status: string, reason?: string) => ({
  type,
  status,
  ...(reason ? { reason } : {}),
  message: 'Secret clusters-cls-1/cls-1-pull-secret in management cluster mgmt-1 not found',
});

describe('the default DRIFT_REPORTED_CONDITION', () => {
  const drift = compileDriftCondition(DEFAULT_DRIFT_REPORTED_CONDITION);

  it.each<[string, Record<string, unknown> | undefined, DriftResult['kind']]>([
    [
      'the local simulator: Available=False PullSecretNotFound at the current generation',
      { observed_generation: 3, conditions: [cond('Available', 'False', 'PullSecretNotFound')] },
      'reported',
    ],
    [
      'the local simulator: PullSecretInvalid',
      { observed_generation: 3, conditions: [cond('Available', 'False', 'PullSecretInvalid')] },
      'reported',
    ],
    [
      'real HyperShift: PullSecretSynced=False SecretNotFound',
      {
        observed_generation: 3,
        conditions: [
          cond('Available', 'True', 'AsExpected'),
          cond('PullSecretSynced', 'False', 'SecretNotFound'),
        ],
      },
      'reported',
    ],
    [
      'an older generation',
      { observed_generation: 2, conditions: [cond('Available', 'False', 'PullSecretNotFound')] },
      'none',
    ],
    [
      'Available=True',
      { observed_generation: 3, conditions: [cond('Available', 'True', 'PullSecretValid')] },
      'none',
    ],
    [
      'another reason (not the pull secret)',
      {
        observed_generation: 3,
        conditions: [cond('Available', 'False', 'HostedClusterNotApplied')],
      },
      'none',
    ],
    [
      'a condition without a reason',
      { observed_generation: 3, conditions: [cond('Available', 'False')] },
      'none',
    ],
    ['no conditions at all', { observed_generation: 3, conditions: [] }, 'none'],
    ['no hypershift status', undefined, 'none'],
  ])('%s', (_, hypershift, expected) => {
    expect(drift.evaluate(context(hypershift)).kind).toBe(expected);
  });

  it("says since when the drift is reported: the reporting condition's last transition", () => {
    const reporting = {
      observed_generation: 3,
      conditions: [
        { ...cond('Available', 'False', 'PullSecretNotFound'), last_transition_time: ago(12) },
        { ...cond('Health', 'False', 'Other'), last_transition_time: ago(1) },
      ],
      last_report_time: ago(2),
    };
    expect(drift.evaluate(context(reporting))).toEqual({ kind: 'reported', since: ago(12) });
  });

  it('is compiled at start: an expression that does not parse is a configuration error', () => {
    expect(() => compileDriftCondition('statuses.hypershift ==')).toThrow(ConfigError);
    expect(() => compileDriftCondition('statuses.hypershift ==')).toThrow(
      /DRIFT_REPORTED_CONDITION/,
    );
  });

  it('reports an expression that fails or is not boolean as an error, without values', () => {
    const missing = compileDriftCondition('statuses.nobody.observed_generation == 1');
    expect(missing.evaluate(context(undefined))).toMatchObject({ kind: 'error' });
    const text = compileDriftCondition('"x"').evaluate(context(undefined));
    expect(text).toMatchObject({ kind: 'error', message: expect.stringMatching(/not a boolean/) });
  });
});
