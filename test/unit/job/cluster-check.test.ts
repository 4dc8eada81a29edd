import { afterLostClaim, lostClaimResult } from '../../../functions/pull-secret-job/claim/claim';
import {
  checkCluster,
  describeStale,
  staleCluster,
} from '../../../functions/pull-secret-job/claim/cluster-check';
import type { HyperFleetApi } from '../../../shared/hyperfleet/port';
import { clusterSchema, type Cluster } from '../../../shared/hyperfleet/schemas';
import { RecordingLogger } from '../../helpers/recording-logger';

/** A cluster as the API answers GET /clusters/{id}, parsed by the client's own schema. */
const cluster = (fields: { generation: number; deleted_time?: string | null }): Cluster =>
  clusterSchema.parse({ id: 'cls-1', name: 'demo', spec: {}, ...fields });

describe('the cluster check: does the cluster still want this apply?', () => {
  it.each([
    ['the same generation', cluster({ generation: 3 }), 3, undefined],
    [
      "a cluster generation below the execution's (the API decides what it keeps)",
      cluster({ generation: 2 }),
      3,
      undefined,
    ],
    [
      'deleted_time null, as the API may send it',
      cluster({ generation: 3, deleted_time: null }),
      3,
      undefined,
    ],
    [
      'a newer generation',
      cluster({ generation: 4 }),
      3,
      { kind: 'newer', generation: 4, mine: 3 },
    ],
    [
      'deletion requested (DELETE also bumps the generation)',
      cluster({ generation: 4, deleted_time: '2030-01-01T00:00:00Z' }),
      3,
      { kind: 'deleting', since: '2030-01-01T00:00:00Z' },
    ],
    [
      'deletion requested, same generation',
      cluster({ generation: 3, deleted_time: '2030-01-01T00:00:00Z' }),
      3,
      { kind: 'deleting', since: '2030-01-01T00:00:00Z' },
    ],
    ['the cluster gone from the API', undefined, 3, { kind: 'gone' }],
    [
      'a direct run (no GENERATION): compared on deletion only',
      cluster({ generation: 9 }),
      undefined,
      undefined,
    ],
    [
      'a direct run of a deleting cluster',
      cluster({ generation: 9, deleted_time: '2030-01-01T00:00:00Z' }),
      undefined,
      { kind: 'deleting', since: '2030-01-01T00:00:00Z' },
    ],
  ])('%s', (_name, found, generation, expected) => {
    expect(staleCluster(found, generation)).toEqual(expected);
  });

  it('names why in words the result message carries', () => {
    expect(describeStale({ kind: 'deleting', since: '2030-01-01T00:00:00Z' })).toBe(
      'the cluster is being deleted (deleted_time 2030-01-01T00:00:00Z)',
    );
    expect(describeStale({ kind: 'newer', generation: 5, mine: 3 })).toBe(
      "generation 5 is newer than this execution's 3",
    );
    expect(
      lostClaimResult(
        { kind: 'superseded', cluster: { kind: 'newer', generation: 5, mine: 3 } },
        'nothing',
      ),
    ).toEqual({
      outcome: 'stood-aside',
      reason: 'SupersededExecution',
      message:
        "Superseded execution: generation 5 is newer than this execution's 3, so this execution wrote nothing.",
    });
  });

  it('withdraws what the apply wrote when the cluster is going away, keeps it for a newer generation', () => {
    expect(afterLostClaim({ kind: 'superseded', cluster: { kind: 'deleting', since: 't' } })).toBe(
      'withdraw',
    );
    expect(afterLostClaim({ kind: 'superseded', cluster: { kind: 'gone' } })).toBe('withdraw');
    expect(
      afterLostClaim({ kind: 'superseded', cluster: { kind: 'newer', generation: 4, mine: 3 } }),
    ).toBe('keep');
  });

  it('reads the cluster only when the run has not just read it, and not at all without the API', async () => {
    const reads: string[] = [];
    const api: Pick<HyperFleetApi, 'findCluster'> = {
      findCluster: (id) => {
        reads.push(id);
        return Promise.resolve(cluster({ generation: 4 }));
      },
    };
    const log = new RecordingLogger();
    const run = { clusterId: 'cls-1', generation: 3 };
    const hyperfleet = api;
    expect(await checkCluster({ hyperfleet }, run, 'before the Kubernetes write', log)).toEqual({
      kind: 'newer',
      generation: 4,
      mine: 3,
    });
    expect(
      await checkCluster({ hyperfleet }, run, 'before the first write', log, {
        cluster: cluster({ generation: 3 }),
      }),
    ).toBeUndefined();
    expect(await checkCluster({}, run, 'before the first write', log)).toBeUndefined();
    expect(reads).toEqual(['cls-1']);
    expect(log.lines.map((l) => [l.level, l.message])).toEqual([
      [
        'warn',
        "Superseded before the Kubernetes write: generation 4 is newer than this execution's 3",
      ],
    ]);
  });
});
