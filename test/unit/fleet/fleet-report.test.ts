// The fleet report's decisions, pure: statuses in, rows and summary out. States, the "not
// converged" threshold and the time it is measured from, stuck PreconditionsNotMet, permanent
// failures, fingerprint prefixes only, and nothing of a status's data but the named fields.
import * as z from 'zod';
import {
  clusterSchema,
  type AdapterStatus,
  type Cluster,
} from '../../../shared/hyperfleet/schemas';
import { fleetReport } from '../../../functions/fleet/report/fleet-report';
import { renderReport, shortDuration } from '../../../functions/fleet/report/render-report';
import { parseFleetArgs, UsageError } from '../../../functions/fleet/args';

const NOW = new Date('2030-01-01T12:00:00.000Z');
const ago = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000).toISOString();
const THIRTY_MINUTES = 30 * 60_000;

function cluster(
  id: string,
  generation: number,
  updatedMinutesAgo: number,
  deleted = false,
): Cluster {
  return clusterSchema.parse({
    id,
    name: `name-${id}`,
    generation,
    spec: {},
    created_time: ago(600),
    updated_time: ago(updatedMinutesAgo),
    ...(deleted ? { deleted_time: ago(updatedMinutesAgo) } : {}),
  });
}

type Cell = readonly [
  status: 'True' | 'False' | 'Unknown',
  reason: string,
  changedMinutesAgo?: number,
];

function status(
  generation: number,
  cells: { applied?: Cell; available?: Cell; health?: Cell; finalized?: Cell },
  data: Record<string, unknown> = {},
): AdapterStatus {
  const conditions = Object.entries({
    Applied: cells.applied,
    Available: cells.available,
    Health: cells.health ?? ['True', 'NoErrors'],
    Finalized: cells.finalized,
  })
    .filter((entry): entry is [string, Cell] => entry[1] !== undefined)
    .map(([type, [s, reason, changed]]) => ({
      type,
      status: s,
      reason,
      message: 'm',
      last_transition_time: ago(changed ?? 600),
    }));
  return {
    adapter: 'pullsecret',
    observed_generation: generation,
    conditions,
    data,
    last_report_time: ago(1),
  };
}

const PLACE = {
  management_cluster: 'mgmt-1',
  namespace: 'clusters-a',
  pull_secret_source: 'cluster-spec',
  pull_secret_sha256_prefix: '0123456789ab',
};
const CONVERGED = {
  applied: ['True', 'JobSucceeded'],
  available: ['True', 'PullSecretProvisioned'],
} as const;

const report = (
  fleet: { cluster: Cluster; statuses: AdapterStatus[] }[],
  thresholdMs = THIRTY_MINUTES,
) => fleetReport(fleet, { now: NOW, notConvergedAfterMs: thresholdMs });
const row = (c: Cluster, statuses: AdapterStatus[], thresholdMs?: number) =>
  report([{ cluster: c, statuses }], thresholdMs).clusters[0]!;

/** The JSON document's schema, as a consumer (a cron, a dashboard) would pin it. */
const conditionCell = z.strictObject({
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().optional(),
});
const reportSchema = z.strictObject({
  schema_version: z.literal(1),
  generated_at: z.iso.datetime(),
  not_converged_after_seconds: z.number().int().positive(),
  launch_queue: z.strictObject({ name: z.string(), state: z.string() }).optional(),
  clusters: z.array(
    z.strictObject({
      id: z.string(),
      name: z.string(),
      generation: z.number().int(),
      deleting: z.boolean(),
      state: z.enum([
        'converged',
        'pending',
        'preconditions-not-met',
        'queued',
        'running',
        'failed',
        'not-available',
      ]),
      available: conditionCell.optional(),
      health: conditionCell.optional(),
      applied_reason: z.string().optional(),
      failure_kind: z.enum(['permanent', 'transient']).optional(),
      pull_secret_source: z.string().optional(),
      default_version: z
        .string()
        .regex(/^[1-9][0-9]*$/)
        .optional(),
      pull_secret_sha256_prefix: z
        .string()
        .regex(/^[0-9a-f]{1,12}$/)
        .optional(),
      management_cluster: z.string().optional(),
      namespace: z.string().optional(),
      observed_generation: z.number().int().optional(),
      last_report_time: z.string().optional(),
      waiting_since: z.iso.datetime().optional(),
      waiting_seconds: z.number().int().nonnegative().optional(),
      not_converged: z.boolean(),
      stuck_preconditions: z.boolean(),
      permanent_failure: z.boolean(),
    }),
  ),
  summary: z.strictObject({
    total: z.number().int(),
    by_state: z.record(z.string(), z.number().int()),
    not_converged: z.array(z.string()),
    stuck_preconditions: z.array(z.string()),
    permanent_failures: z.array(z.string()),
    by_default_version: z.record(z.string().regex(/^[1-9][0-9]*$/), z.number().int().positive()),
  }),
  exit_code: z.union([z.literal(0), z.literal(1)]),
});

describe('fleet report (pure)', () => {
  it('a converged cluster: its place, source and fingerprint prefix, nothing late, exit 0', () => {
    const r = report([{ cluster: cluster('a', 3, 60), statuses: [status(3, CONVERGED, PLACE)] }]);
    expect(reportSchema.parse(JSON.parse(JSON.stringify(r)))).toBeDefined();
    expect(r.clusters[0]).toEqual({
      id: 'a',
      name: 'name-a',
      generation: 3,
      deleting: false,
      state: 'converged',
      available: { status: 'True', reason: 'PullSecretProvisioned' },
      health: { status: 'True', reason: 'NoErrors' },
      applied_reason: 'JobSucceeded',
      pull_secret_source: 'cluster-spec',
      pull_secret_sha256_prefix: '0123456789ab',
      management_cluster: 'mgmt-1',
      namespace: 'clusters-a',
      observed_generation: 3,
      last_report_time: ago(1),
      not_converged: false,
      stuck_preconditions: false,
      permanent_failure: false,
    });
    expect(r.summary.by_state).toEqual({
      converged: 1,
      pending: 0,
      'preconditions-not-met': 0,
      queued: 0,
      running: 0,
      failed: 0,
      'not-available': 0,
    });
    expect(r.exit_code).toBe(0);
  });

  it('prints a fingerprint prefix only: a whole hash is cut to 12, anything not hex is dropped', () => {
    const whole = 'ab'.repeat(32);
    expect(
      row(cluster('a', 1, 5), [status(1, CONVERGED, { pull_secret_sha256_prefix: whole })])
        .pull_secret_sha256_prefix,
    ).toBe('abababababab');
    expect(
      row(cluster('a', 1, 5), [status(1, CONVERGED, { pull_secret_sha256_prefix: '{"auths":1}' })]),
    ).not.toHaveProperty('pull_secret_sha256_prefix');
  });

  it('copies no other status data: a stray secret in data never reaches the rows, the JSON or the table', () => {
    const canary = 'CANARY-c2VjcmV0';
    const r = report([
      {
        cluster: cluster('a', 1, 5),
        statuses: [status(1, CONVERGED, { ...PLACE, pull_secret: canary, auths: { x: canary } })],
      },
    ]);
    expect(JSON.stringify(r)).not.toContain(canary);
    expect(renderReport(r).join('\n')).not.toContain(canary);
  });

  it('states: pending (none, or an older generation), queued, running, preconditions-not-met, failed', () => {
    const states = report([
      { cluster: cluster('none', 1, 5), statuses: [] },
      { cluster: cluster('old', 2, 5), statuses: [status(1, CONVERGED, PLACE)] },
      {
        cluster: cluster('queued', 1, 5),
        statuses: [
          status(1, { applied: ['True', 'JobQueued'], available: ['False', 'JobQueued'] }),
        ],
      },
      {
        cluster: cluster('running', 1, 5),
        statuses: [
          status(1, { applied: ['True', 'JobLaunched'], available: ['False', 'JobRunning'] }),
        ],
      },
      {
        cluster: cluster('waits', 1, 5),
        statuses: [
          status(1, {
            applied: ['False', 'PreconditionsNotMet'],
            available: ['False', 'PreconditionsNotMet'],
          }),
        ],
      },
      {
        cluster: cluster('failed', 1, 5),
        statuses: [
          status(
            1,
            {
              applied: ['True', 'JobExecuted'],
              available: ['False', 'ApiUnavailable'],
              health: ['False', 'ApiUnavailable'],
            },
            { failure_kind: 'transient' },
          ),
        ],
      },
    ]).clusters.map((r) => `${r.id}:${r.state}`);
    expect(states).toEqual([
      'failed:failed',
      'none:pending',
      'old:pending',
      'queued:queued',
      'running:running',
      'waits:preconditions-not-met',
    ]);
  });

  it('not converged past the threshold: measured from the generation start (updated_time), exit 1', () => {
    const fresh = row(cluster('a', 2, 29), [status(1, CONVERGED, PLACE)]);
    expect(fresh).toMatchObject({
      state: 'pending',
      waiting_since: ago(29),
      waiting_seconds: 29 * 60,
      not_converged: false,
    });
    const late = report([
      { cluster: cluster('a', 2, 31), statuses: [status(1, CONVERGED, PLACE)] },
    ]);
    expect(late.clusters[0]).toMatchObject({ waiting_seconds: 31 * 60, not_converged: true });
    expect(late.summary.not_converged).toEqual(['a']);
    expect(late.exit_code).toBe(1);
    // The threshold is the caller's.
    expect(row(cluster('a', 2, 31), [status(1, CONVERGED, PLACE)], 60 * 60_000).not_converged).toBe(
      false,
    );
  });

  it('a cluster that converged at this generation and lost it waits from then (Available last changed), not from the generation', () => {
    const drifted = status(4, {
      applied: ['True', 'JobExecuted'],
      available: ['False', 'KubernetesWriteFailed', 10],
      health: ['False', 'KubernetesWriteFailed'],
    });
    expect(row(cluster('a', 4, 600), [drifted])).toMatchObject({
      state: 'failed',
      waiting_since: ago(10),
      not_converged: false,
    });
  });

  it('stuck in PreconditionsNotMet past the threshold is listed apart (and counts as not converged)', () => {
    const r = report([
      {
        cluster: cluster('a', 1, 45),
        statuses: [
          status(1, {
            applied: ['False', 'PreconditionsNotMet'],
            available: ['False', 'PreconditionsNotMet', 44],
          }),
        ],
      },
      {
        cluster: cluster('b', 1, 5),
        statuses: [
          status(1, {
            applied: ['False', 'PreconditionsNotMet'],
            available: ['False', 'PreconditionsNotMet', 4],
          }),
        ],
      },
    ]);
    expect(r.summary).toMatchObject({
      stuck_preconditions: ['a'],
      not_converged: ['a'],
      permanent_failures: [],
    });
  });

  it("permanent failures at the current generation fail the report at once; a kept background refusal too; an older generation's does not", () => {
    const refused = status(
      2,
      {
        applied: ['False', 'InvalidManagementNamespace'],
        available: ['False', 'InvalidManagementNamespace', 1],
        health: ['False', 'InvalidManagementNamespace'],
      },
      { failure_kind: 'permanent' },
    );
    const keptRefusal = status(
      2,
      {
        applied: ['False', 'PermissionDenied'],
        available: ['True', 'PullSecretProvisioned'],
        health: ['False', 'PermissionDenied'],
      },
      { ...PLACE, failure_kind: 'permanent' },
    );
    const r = report([
      { cluster: cluster('new', 2, 1), statuses: [refused] },
      { cluster: cluster('kept', 2, 100), statuses: [keptRefusal] },
      { cluster: cluster('older', 3, 1), statuses: [refused] },
    ]);
    expect(r.summary.permanent_failures).toEqual(['kept', 'new']);
    expect(r.clusters.find((c) => c.id === 'kept')).toMatchObject({
      state: 'converged',
      failure_kind: 'permanent',
    });
    expect(r.summary.not_converged).toEqual([]);
    expect(r.exit_code).toBe(1);
  });

  it('a deleting cluster converges on Finalized=True; until then it waits like any other', () => {
    const finalized = status(5, {
      applied: ['False', 'CleanupConfirmed'],
      available: ['False', 'CleanupConfirmed'],
      finalized: ['True', 'CleanupConfirmed'],
    });
    expect(row(cluster('a', 5, 40, true), [finalized])).toMatchObject({
      state: 'converged',
      deleting: true,
      not_converged: false,
    });
    const cleaning = status(5, {
      applied: ['True', 'JobLaunched'],
      available: ['False', 'JobRunning'],
      finalized: ['False', 'CleanupInProgress', 40],
    });
    expect(row(cluster('a', 5, 40, true), [cleaning])).toMatchObject({
      state: 'running',
      not_converged: true,
    });
  });

  it('shows the platform default version per cluster and counts clusters per version (numeric order); drops anything not a number', () => {
    const onDefault = (version: unknown) => ({
      ...PLACE,
      pull_secret_source: 'platform-default',
      default_version: version,
    });
    const r = report([
      { cluster: cluster('a', 1, 5), statuses: [status(1, CONVERGED, onDefault('10'))] },
      { cluster: cluster('b', 1, 5), statuses: [status(1, CONVERGED, onDefault('9'))] },
      { cluster: cluster('c', 1, 5), statuses: [status(1, CONVERGED, onDefault('10'))] },
      { cluster: cluster('d', 1, 5), statuses: [status(1, CONVERGED, PLACE)] },
      { cluster: cluster('e', 1, 5), statuses: [status(1, CONVERGED, onDefault('latest'))] },
    ]);
    expect(reportSchema.parse(JSON.parse(JSON.stringify(r)))).toBeDefined();
    expect(r.clusters.map((c) => c.default_version)).toEqual([
      '10',
      '9',
      '10',
      undefined,
      undefined,
    ]);
    expect(r.summary.by_default_version).toEqual({ '9': 1, '10': 2 });
    expect(Object.keys(r.summary.by_default_version)).toEqual(['9', '10']);
    const lines = renderReport(r);
    expect(lines[0]).toMatch(/\sSOURCE\s+DEFAULT\s+SHA256\s/);
    expect(lines[1]).toMatch(/\splatform-default\s+10\s+0123456789ab\s/);
    expect(lines.at(-1)).toBe('on the platform default: version 9: 1, version 10: 2');
  });

  it('renders a table and a summary; sorts by id', () => {
    const r = fleetReport(
      [
        { cluster: cluster('b', 1, 5), statuses: [status(1, CONVERGED, PLACE)] },
        { cluster: cluster('a', 2, 40), statuses: [status(1, CONVERGED, PLACE)] },
      ],
      {
        now: NOW,
        notConvergedAfterMs: THIRTY_MINUTES,
        launchQueue: { name: 'projects/p/locations/l/queues/q', state: 'PAUSED' },
      },
    );
    const lines = renderReport(r);
    expect(lines[0]).toMatch(/^ID\s+NAME\s+GEN\s+STATE/);
    expect(lines[1]).toMatch(/^a\s+name-a\s+2\s+pending LATE/);
    expect(lines[2]).toContain('mgmt-1/clusters-a');
    expect(lines.slice(-5)).toEqual([
      '2 cluster(s): converged 1, pending 1',
      'not converged after 30m00s: a',
      'stuck in PreconditionsNotMet: none',
      'failing permanently: none',
      'launch queue projects/p/locations/l/queues/q: PAUSED',
    ]);
    expect([shortDuration(59), shortDuration(95), shortDuration(4000)]).toEqual([
      '59s',
      '1m35s',
      '1h06m',
    ]);
  });
});

describe('fleet arguments', () => {
  it('parses the three commands and their flags', () => {
    expect(parseFleetArgs(['pause'])).toEqual({ kind: 'pause' });
    expect(parseFleetArgs(['resume', '--queue', 'projects/p/locations/l/queues/q'])).toEqual({
      kind: 'resume',
      queue: 'projects/p/locations/l/queues/q',
    });
    expect(
      parseFleetArgs([
        'report',
        '--json',
        '--not-converged-after',
        '90s',
        '--hyperfleet-api',
        'https://api.example.com',
      ]),
    ).toEqual({
      kind: 'report',
      json: true,
      notConvergedAfterMs: 90_000,
      hyperfleetApi: 'https://api.example.com',
    });
    expect(parseFleetArgs(['report'])).toMatchObject({
      json: false,
      notConvergedAfterMs: THIRTY_MINUTES,
    });
    expect(parseFleetArgs(['pause', '--management-cluster', 'mgmt-1'])).toEqual({
      kind: 'pause',
      managementCluster: 'mgmt-1',
    });
    expect(parseFleetArgs(['resync', 'c1', 'c2'])).toMatchObject({
      kind: 'resync',
      selector: { kind: 'clusters', ids: ['c1', 'c2'] },
    });
    expect(parseFleetArgs(['resync', '--default'])).toMatchObject({
      selector: { kind: 'default' },
    });
    expect(parseFleetArgs(['resync', '--management-cluster', 'mgmt-2'])).toMatchObject({
      selector: { kind: 'management-cluster', name: 'mgmt-2' },
    });
  });

  it.each([
    [['pause', '--management-cluster', 'Bad_Name'], /not a management cluster name/],
    [['resync'], /exactly one of/],
    [['resync', 'c1', '--all'], /exactly one of/],
    [['resync', '--management-cluster', 'x', '--default'], /exactly one of/],
    [['resync', '../etc'], /not a cluster id/],
    [['resync', '--all', '--topic', 'q'], /projects\/P\/topics\/T/],
    [['report', '--all'], /resync flags/],
    [['report', '--not-converged-after', 'soon'], /not a duration/],
    [['pause', '--queue', 'q'], /projects\/P\/locations\/L\/queues\/Q/],
    [['stop'], /unknown command "stop"/],
    [[], /give a command/],
    [['report', '--bogus'], /bogus/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseFleetArgs(argv)).toThrow(UsageError);
    expect(() => parseFleetArgs(argv)).toThrow(message);
  });
});
