import { decide } from '../../../functions/adapter/decision/decide';
import type {
  ClusterFacts,
  DecisionInput,
  DecisionSettings,
} from '../../../functions/adapter/decision/decision';
import type { OwnStatus } from '../../../shared/status/own-status';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString();
const settings: DecisionSettings = {
  resyncIntervalMs: 6 * 3600_000,
  executionTimeoutMs: 20 * 60_000,
  retryBackoffBaseMs: 30_000,
  retryBackoffMaxMs: 30 * 60_000,
  permanentFailureRetryMs: 3600_000,
  heartbeatMs: 5 * 60_000,
  executionCheckAfterMs: 3 * 60_000,
  launchCheckAfterMs: 30_000,
  launchStartGraceMs: 300_000,
};
const cluster = (overrides: Partial<ClusterFacts> = {}): ClusterFacts => ({
  clusterId: 'cls-1',
  clusterName: 'prod-cluster',
  generation: 3,
  deleting: false,
  gcpProjectId: 'customer-project',
  keepsPreviousLayout: false,
  namespace: { ok: true, value: 'clusters-cls-1' },
  managementCluster: { ok: true },
  ...overrides,
});
const own = (overrides: Partial<OwnStatus> = {}): OwnStatus => ({
  observedGeneration: 3,
  lastReportTime: ago(60),
  data: {},
  ...overrides,
});
const input = (overrides: Partial<DecisionInput> = {}): DecisionInput => ({
  event: {
    eventId: 'e1',
    type: 'com.redhat.hyperfleet.cluster.reconcile',
    source: 'hyperfleet-sentinel',
    clusterId: 'cls-1',
    generation: 3,
  },
  cluster: cluster(),
  own: undefined,
  preconditions: { kind: 'met' },
  settings,
  now: NOW,
  ...overrides,
});
const running = (launchedSecondsAgo: number, operation: 'apply' | 'delete' = 'apply') =>
  own({
    available: 'False',
    availableReason: 'JobRunning',
    appliedReason: 'JobLaunched',
    health: 'True',
    data: { execution: 'exec-1', operation, launched_at: ago(launchedSecondsAgo), attempt: 1 },
  });
const queued = (recordedSecondsAgo: number) =>
  own({
    available: 'False',
    availableReason: 'JobQueued',
    appliedReason: 'JobQueued',
    health: 'True',
    data: {
      task: 'task-1',
      operation: 'apply',
      launched_at: ago(recordedSecondsAgo),
      attempt: 1,
    },
  });
const failed = (kind: 'permanent' | 'transient', attempt: number, reportedSecondsAgo: number) =>
  own({
    available: 'False',
    availableReason: 'InvalidPullSecret',
    health: 'False',
    lastReportTime: ago(reportedSecondsAgo),
    data: { execution: 'exec-1', operation: 'apply', failure_kind: kind, attempt },
  });

describe('decide', () => {
  it.each<[string, Partial<DecisionInput>, string]>([
    ['cluster gone (404): no report', { cluster: undefined }, 'skip:cluster-gone'],
    [
      'event older than the cluster: a newer event will come',
      { event: { eventId: 'e', type: 't', source: 's', clusterId: 'cls-1', generation: 2 } },
      'skip:stale-event',
    ],
    [
      'event without generation (older shape) is treated as current',
      { event: { eventId: 'e', type: 'cluster.create', source: 's', clusterId: 'cls-1' } },
      'launch:apply#1',
    ],
    [
      'event newer than the cluster read: act on what is read',
      { event: { eventId: 'e', type: 't', source: 's', clusterId: 'cls-1', generation: 4 } },
      'launch:apply#1',
    ],
    ['first event, preconditions met', {}, 'launch:apply#1'],
    [
      'preconditions not met',
      {
        preconditions: {
          kind: 'not-met',
          name: 'dnsAvailable',
          message: 'Precondition dnsAvailable is not met: x',
        },
      },
      'report:not-met',
    ],
    [
      'precondition failed to evaluate',
      {
        preconditions: {
          kind: 'error',
          name: 'p',
          message: 'Precondition p failed to evaluate: boom',
        },
      },
      'report:precondition-error',
    ],
    [
      'same not-met already reported recently',
      {
        preconditions: {
          kind: 'not-met',
          name: 'dnsAvailable',
          message: 'Precondition is not met: the adapter is not ready',
        },
        own: own({
          available: 'False',
          availableReason: 'PreconditionsNotMet',
          data: { precondition: 'dnsAvailable' },
        }),
      },
      'skip:already-reported',
    ],
    [
      'same not-met reported long ago: heartbeat',
      {
        preconditions: {
          kind: 'not-met',
          name: 'dnsAvailable',
          message: 'Precondition is not met: the adapter is not ready',
        },
        own: own({
          available: 'False',
          availableReason: 'PreconditionsNotMet',
          lastReportTime: ago(600),
          data: { precondition: 'dnsAvailable' },
        }),
      },
      'report:not-met',
    ],
    [
      'another precondition now fails',
      {
        preconditions: {
          kind: 'not-met',
          name: 'placementAvailable',
          message: 'Precondition is not met: the adapter is not ready',
        },
        own: own({
          available: 'False',
          availableReason: 'PreconditionsNotMet',
          data: { precondition: 'dnsAvailable' },
        }),
      },
      'report:not-met',
    ],
    [
      'up to date: Available=True at this generation, recent',
      { own: own({ available: 'True', availableReason: 'PullSecretProvisioned' }) },
      'skip:up-to-date',
    ],
    [
      'up to date wins over a flapping precondition',
      {
        own: own({ available: 'True' }),
        preconditions: {
          kind: 'not-met',
          name: 'dnsAvailable',
          message: 'Precondition is not met: the adapter is not ready',
        },
      },
      'skip:up-to-date',
    ],
    [
      // The success holds the job's claim with attempt 1: the resync must take it with attempt 2.
      'Available=True but older than RESYNC_INTERVAL: resync',
      { own: own({ available: 'True', lastReportTime: ago(7 * 3600) }) },
      'launch:apply#2',
    ],
    [
      'Available=True at attempt 3, older than RESYNC_INTERVAL: resync with attempt 4',
      { own: own({ available: 'True', lastReportTime: ago(7 * 3600), data: { attempt: 3 } }) },
      'launch:apply#4',
    ],
    [
      'Available=True at an older generation: new generation',
      { own: own({ available: 'True', observedGeneration: 2 }) },
      'launch:apply#1',
    ],
    ['in flight: launched a minute ago', { own: running(60) }, 'skip:in-flight'],
    [
      'in flight wins over a flapping precondition',
      {
        own: running(60),
        preconditions: {
          kind: 'not-met',
          name: 'dnsAvailable',
          message: 'Precondition is not met: the adapter is not ready',
        },
      },
      'skip:in-flight',
    ],
    [
      'running longer than EXECUTION_CHECK_AFTER: asks Cloud Run (GetExecution)',
      { own: running(4 * 60) },
      'check-execution',
    ],
    [
      'running longer than the execution timeout: still asks Cloud Run first',
      { own: running(25 * 60) },
      'check-execution',
    ],
    [
      'Cloud Run says the execution is gone: relaunch with attempt+1',
      { own: running(4 * 60), lost: 'exec-1' },
      'launch:apply#2',
    ],
    ['queued 20 s ago: left to the queue', { own: queued(20) }, 'skip:in-flight'],
    [
      'queued longer than LAUNCH_CHECK_AFTER: ask Cloud Tasks (GetTask)',
      { own: queued(40) },
      'check-task',
    ],
    [
      'a queued launch of another operation does not hold a delete',
      { cluster: cluster({ deleting: true }), own: queued(20) },
      'launch:delete#2',
    ],
    [
      'a task Cloud Tasks dispatched and no execution reported, past the grace: launch again',
      { own: queued(400), lost: 'task-1' },
      'launch:apply#2',
    ],
    [
      'running at an older generation: new generation launches',
      { own: { ...running(60), observedGeneration: 2 } },
      'launch:apply#1',
    ],
    [
      'permanent failure at this generation: wait for a change',
      { own: failed('permanent', 1, 60) },
      'skip:failed-permanently',
    ],
    [
      'permanent failure long ago: try again',
      { own: failed('permanent', 1, 2 * 3600) },
      'launch:apply#2',
    ],
    [
      'transient failure, backoff not elapsed',
      { own: failed('transient', 1, 10) },
      'skip:backing-off',
    ],
    ['transient failure, backoff elapsed', { own: failed('transient', 1, 40) }, 'launch:apply#2'],
    [
      'transient failure 3rd attempt waits 2 min',
      { own: failed('transient', 3, 100) },
      'skip:backing-off',
    ],
    [
      'transient failure 3rd attempt after 2 min',
      { own: failed('transient', 3, 130) },
      'launch:apply#4',
    ],
    [
      'failure at an older generation does not block a new one',
      { own: { ...failed('permanent', 1, 10), observedGeneration: 2 } },
      'launch:apply#1',
    ],
    [
      'deleting: launch a delete',
      { cluster: cluster({ deleting: true }), own: own({ available: 'True' }) },
      'launch:delete#1',
    ],
    [
      'deleting ignores preconditions',
      {
        cluster: cluster({ deleting: true }),
        preconditions: {
          kind: 'not-met',
          name: 'dnsAvailable',
          message: 'Precondition is not met: the adapter is not ready',
        },
      },
      'launch:delete#1',
    ],
    [
      'deleting, delete in flight',
      { cluster: cluster({ deleting: true }), own: running(30, 'delete') },
      'skip:in-flight',
    ],
    [
      'deleting while an apply is running: delete anyway',
      { cluster: cluster({ deleting: true }), own: running(30, 'apply') },
      'launch:delete#2',
    ],
    [
      'deleting, finalized',
      { cluster: cluster({ deleting: true }), own: own({ finalized: 'True' }) },
      'skip:finalized',
    ],
    [
      'deleting a cluster that never had a project id: nothing to clean',
      { cluster: cluster({ deleting: true, gcpProjectId: undefined }) },
      'report:finalized',
    ],
    [
      'cluster id not label-safe',
      { cluster: cluster({ clusterId: 'Cluster_1' }) },
      'report:launch-failed',
    ],
    [
      'cluster name not label-safe',
      { cluster: cluster({ clusterName: 'Has Spaces' }) },
      'report:launch-failed',
    ],
    [
      'placement namespace not a DNS label',
      { cluster: cluster({ namespace: { ok: false, problem: 'bad namespace' } }) },
      'report:launch-failed',
    ],
    [
      'placement management cluster not a DNS label',
      { cluster: cluster({ managementCluster: { ok: false, problem: 'bad cluster' } }) },
      'report:launch-failed',
    ],
    [
      'no GCP project id (custom preconditions let it through)',
      { cluster: cluster({ gcpProjectId: undefined }) },
      'report:launch-failed',
    ],
  ])('%s', (_name, overrides, expected) => {
    const decision = decide(input(overrides));
    const summary =
      decision.kind === 'skip'
        ? `skip:${decision.reason}`
        : decision.kind === 'report'
          ? `report:${decision.outcome.kind}`
          : decision.kind === 'launch'
            ? `launch:${decision.operation}#${decision.attempt}`
            : decision.kind;
    expect(summary).toBe(expected);
    expect(decision.message.length).toBeGreaterThan(10);
  });

  it.each([
    ['first-event', {}],
    ['new-generation', { own: own({ available: 'True', observedGeneration: 2 }) }],
    ['resync', { own: own({ available: 'True', lastReportTime: ago(7 * 3600) }) }],
    ['retry', { own: failed('transient', 1, 40) }],
  ] as const)(
    'names why it launches as a code (%s), for spans and metrics',
    (reason, overrides) => {
      expect(decide(input(overrides))).toMatchObject({ kind: 'launch', reason });
    },
  );

  it('launches into the management namespace with the GCP project id', () => {
    const decision = decide(
      input({ cluster: cluster({ namespace: { ok: true, value: 'clusters-placed' } }) }),
    );
    expect(decision).toMatchObject({
      kind: 'launch',
      namespace: 'clusters-placed',
      gcpProjectId: 'customer-project',
    });
  });

  it("launches onto placement's management cluster, or names none (the job's default)", () => {
    const placed = decide(
      input({ cluster: cluster({ managementCluster: { ok: true, value: 'mgmt-2' } }) }),
    );
    expect(placed).toMatchObject({ kind: 'launch', managementCluster: 'mgmt-2' });
    const unplaced = decide(input());
    expect(unplaced.kind).toBe('launch');
    expect(unplaced).not.toHaveProperty('managementCluster');
  });

  it('reports an invalid placement management cluster as InvalidManagementCluster', () => {
    const decision = decide(
      input({
        cluster: cluster({
          managementCluster: { ok: false, problem: 'data.managementCluster "Mgmt_1" is bad' },
        }),
      }),
    );
    expect(decision).toMatchObject({
      kind: 'report',
      outcome: {
        kind: 'launch-failed',
        reason: 'InvalidManagementCluster',
        message: expect.stringContaining('Mgmt_1'),
      },
    });
  });

  it('names the reason in invalid-input reports', () => {
    const decision = decide(
      input({
        cluster: cluster({
          namespace: {
            ok: false,
            problem: 'The placement adapter data.namespace "Bad_NS" is not a namespace',
          },
        }),
      }),
    );
    expect(decision).toMatchObject({
      kind: 'report',
      outcome: {
        kind: 'launch-failed',
        reason: 'InvalidManagementNamespace',
        message: expect.stringContaining('Bad_NS'),
      },
    });
  });
});
