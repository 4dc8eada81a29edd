import { decideLateReport, reportTiming } from '../../../functions/reporter/report/late-report';
import type { PlannedReport } from '../../../shared/status/planned-report';
import type { OwnStatus } from '../../../shared/status/own-status';

const now = new Date('2026-11-23T12:00:00Z');
const minutes = (n: number) => new Date(now.getTime() + n * 60_000).toISOString();
const JOB = 'projects/p/locations/l/jobs/j';
const plan = (observedAt: string, generation = 3, execution = 'exec-a'): PlannedReport => ({
  clusterId: 'c1',
  generation,
  observedAt,
  outcome: {
    kind: 'succeeded',
    execution: `${JOB}/executions/${execution}`,
    provisioned: { secretPath: 'projects/p/secrets/s', secretVersion: '1' },
    timing: { completedAt: observedAt },
  },
});
const own = (overrides: Partial<OwnStatus> = {}): OwnStatus => ({
  observedGeneration: 3,
  available: 'False',
  availableReason: 'JobRunning',
  data: { execution: `${JOB}/executions/exec-a` },
  ...overrides,
});

describe('reportTiming: the API window (30 min past, 5 min future, a minute of margin)', () => {
  it.each([
    [minutes(-28), 'as-observed'],
    [minutes(3), 'as-observed'],
    [minutes(-29.5), 'needs-current-state'],
    [minutes(-300), 'needs-current-state'],
    [minutes(4.5), 'needs-current-state'],
    ['not a time', 'needs-current-state'],
  ])('observed %s -> %s', (observedAt, kind) => {
    const timing = reportTiming(plan(observedAt), now);
    expect(timing.kind).toBe(kind);
    // Never rewritten: a report in the window keeps its own time.
    if (timing.kind === 'as-observed') expect(timing.observedAt.toISOString()).toBe(observedAt);
  });
});

describe('decideLateReport', () => {
  const late = plan(minutes(-45));
  it.each<[string, OwnStatus | undefined, 're-derived' | 'drop', RegExp]>([
    ['no status yet', undefined, 're-derived', /no status/],
    [
      'an older generation stored',
      own({ observedGeneration: 2 }),
      're-derived',
      /older generation 2/,
    ],
    [
      'the same execution still running',
      own(),
      're-derived',
      /still shows execution exec-a running/,
    ],
    ['a newer generation stored', own({ observedGeneration: 4 }), 'drop', /newer generation 4/],
    [
      'another execution (a relaunch) stored',
      own({ data: { execution: `${JOB}/executions/exec-b` } }),
      'drop',
      /execution exec-b .*newer than execution exec-a/,
    ],
    [
      'a report without an execution (preconditions) stored',
      own({ availableReason: 'PreconditionsNotMet', data: {} }),
      'drop',
      /another report/,
    ],
    [
      'this execution already reported (by its other message)',
      own({ available: 'True', availableReason: 'PullSecretProvisioned' }),
      'drop',
      /already reported/,
    ],
  ])('%s -> %s', (_name, stored, kind, reason) => {
    const decision = decideLateReport(late, stored, now);
    expect(decision.kind).toBe(kind);
    expect(decision.reason).toMatch(reason);
    if (decision.kind === 're-derived') expect(decision.observedAt).toEqual(now);
  });
});
