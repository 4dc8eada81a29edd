import path from 'node:path';
import { ConditionWatcher } from '../../../emulators/pullsecret/stack/condition-watcher';
import type { TailedLine } from '../../../emulators/pullsecret/stack/log-tailer';
import {
  formatEvent,
  timelineEvents,
  type TimelineEvent,
} from '../../../emulators/pullsecret/stack/timeline';
import { RESULT_LINE_KEY } from '../../../shared/job-result';
import type { Cluster } from '../../../shared/hyperfleet/schemas';

const LOGS = '/tmp/stack/logs';
const ID = '0192c0de-0000-7000-8000-000000000001';
const line = (
  file: string,
  message: string,
  metadata: Record<string, unknown> = {},
): TailedLine => ({
  source: path.join(LOGS, file),
  json: { severity: 'INFO', message, metadata: { cluster_id: ID, ...metadata } },
});
const job = (message: string, metadata: Record<string, unknown>) =>
  line(path.join('jobs', 'pull-secret-abc.log'), message, metadata);
const cluster = (
  generation: number,
  conditions: [type: string, status: string, observed: number, reason: string][],
  deleted = false,
) =>
  ({
    id: ID,
    name: 'demo-cluster',
    generation,
    ...(deleted ? { deleted_time: '2026-11-23T16:00:00Z' } : {}),
    status: {
      conditions: conditions.map(([type, status, observed_generation, reason]) => ({
        type,
        status,
        observed_generation,
        reason,
      })),
    },
  }) as unknown as Cluster;

/** The timeline as people read it (time left out), from log lines and API polls in order. */
function timeline(steps: ({ log: TailedLine } | { poll: Cluster[] })[]): string[] {
  const watcher = new ConditionWatcher();
  const names = new Map([[ID, 'demo-cluster']]);
  const events: TimelineEvent[] = steps.flatMap((step) =>
    'log' in step ? timelineEvents(step.log) : watcher.diff(step.poll),
  );
  return events.map((e) => formatEvent(e, 0, false, names).replace(/^\+\s+0\.0s {2}/, ''));
}

describe('the timeline of a scripted scenario', () => {
  it('tells apply with Secret Manager retries, Reconciled both ways, and deletion exactly', () => {
    const lines = timeline([
      { poll: [cluster(1, [['Reconciled', 'False', 1, 'MissingRequiredAdapters']])] },
      {
        log: line('sentinel.log', 'Published reconcile event', {
          decision: 'published',
          generation: 1,
          reason: 'never processed',
        }),
      },
      {
        log: line('adapter-1.log', 'launching the job for generation 1', {
          decision: 'launch-apply',
        }),
      },
      {
        log: line(
          'adapter-1.log',
          'Queued launch task projects/p/locations/l/queues/q/tasks/0a1b2c3d-c-g1-apply-a1',
          {
            decision: 'launch-queued',
            task: 'projects/p/locations/l/queues/q/tasks/0a1b2c3d-c-g1-apply-a1',
          },
        ),
      },
      // Secret Manager UNAVAILABLE twice: two failed attempts, then one version.
      ...[1, 2].map((retry) => ({
        log: job('AddSecretVersion failed, checking before retrying', {
          phase: 'secret-manager',
          operation: 'add-secret-version',
          retry,
          delay_ms: 200 * retry,
        }),
      })),
      {
        log: job('Added secret version', {
          phase: 'secret-manager',
          operation: 'add-secret-version',
          version: 'projects/p/secrets/s/versions/1',
        }),
      },
      {
        log: job('Kubernetes Secret created', {
          phase: 'kubernetes',
          operation: 'create-secret',
          namespace: `clusters-${ID}`,
          k8s_secret: `${ID}-pull-secret`,
        }),
      },
      {
        poll: [
          cluster(1, [
            ['Reconciled', 'True', 1, 'AllAdaptersReconciled'],
            ['PullsecretSuccessful', 'True', 1, 'PullSecretStored'],
          ]),
        ],
      },
      // A new generation: Reconciled goes False until every adapter caught up.
      {
        poll: [
          cluster(2, [
            ['Reconciled', 'False', 2, 'AdaptersNotAtGeneration'],
            ['PullsecretSuccessful', 'True', 1, 'PullSecretStored'],
          ]),
        ],
      },
      {
        poll: [
          cluster(
            3,
            [
              ['Reconciled', 'False', 2, 'AdaptersNotAtGeneration'],
              ['PullsecretSuccessful', 'True', 1, 'PullSecretStored'],
            ],
            true,
          ),
        ],
      },
      {
        log: job('Secret Manager secret deleted', {
          phase: 'secret-manager',
          operation: 'delete-secret',
        }),
      },
      {
        log: job('Kubernetes Secret deleted', { phase: 'kubernetes', operation: 'delete-secret' }),
      },
      {
        log: {
          source: path.join(LOGS, 'jobs', 'pull-secret-abc.log'),
          json: {
            [RESULT_LINE_KEY]: {
              execution: 'j-2',
              outcome: 'succeeded',
              message: 'deleted',
              cluster_id: ID,
            },
          },
        },
      },
      { poll: [] },
    ]);
    expect(lines).toEqual([
      'hyperfleet [demo-cluster] Reconciled=False at generation 1 (MissingRequiredAdapters)',
      'sentinel   [demo-cluster] reconcile event published for generation 1 (never processed)',
      'adapter#1  [demo-cluster] preconditions met: launching the job for generation 1',
      'adapter#1  [demo-cluster] launch queued: 0a1b2c3d-c-g1-apply-a1',
      'job        [demo-cluster] Secret Manager write failed, retry 1 in 200 ms',
      'job        [demo-cluster] Secret Manager write failed, retry 2 in 400 ms',
      'job        [demo-cluster] Secret Manager version added: projects/p/secrets/s/versions/1',
      `job        [demo-cluster] Kubernetes Secret created: clusters-${ID}/${ID}-pull-secret`,
      'hyperfleet [demo-cluster] PullsecretSuccessful=True at generation 1 (PullSecretStored)',
      'hyperfleet [demo-cluster] Reconciled=True at generation 1 (AllAdaptersReconciled): Ready',
      'hyperfleet [demo-cluster] Reconciled=False at generation 2 (AdaptersNotAtGeneration)',
      'hyperfleet [demo-cluster] deletion requested (generation 3)',
      'job        [demo-cluster] Secret Manager secret deleted',
      'job        [demo-cluster] Kubernetes Secret deleted',
      'job        [demo-cluster] execution j-2 succeeded: deleted',
      'hyperfleet [demo-cluster] cluster hard-deleted (every required adapter reported Finalized=True)',
    ]);
  });
});
