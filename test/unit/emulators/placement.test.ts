import path from 'node:path';
import { spreadOver } from '../../../emulators/pullsecret/hyperfleet/simulated-adapters';
import { placementOf } from '../../../emulators/pullsecret/stack/placement';
import { timelineEvents } from '../../../emulators/pullsecret/stack/timeline';

describe('the local placement simulation', () => {
  it('spreads clusters over the management clusters, the same way every time', () => {
    const ids = Array.from(
      { length: 200 },
      (_, i) => `0190a1b2-c3d4-7e5f-8a9b-${String(i).padStart(12, '0')}`,
    );
    const counts = { 'mgmt-1': 0, 'mgmt-2': 0 };
    for (const id of ids) counts[spreadOver(['mgmt-1', 'mgmt-2'], id) as keyof typeof counts]++;
    expect(counts['mgmt-1']).toBeGreaterThan(60);
    expect(counts['mgmt-2']).toBeGreaterThan(60);
    // The same way every time: in every process and run (a restarted stack, the e2e tests that
    // predict a cluster's place), so the places are pinned here, not compared with a second call.
    const firstEight = ids.slice(0, 8);
    expect(firstEight.map((id) => spreadOver(['mgmt-1', 'mgmt-2'], id))).toEqual([
      'mgmt-1',
      'mgmt-2',
      'mgmt-1',
      'mgmt-1',
      'mgmt-1',
      'mgmt-1',
      'mgmt-2',
      'mgmt-1',
    ]);
    expect(firstEight.map((id) => spreadOver(['mgmt-1', 'mgmt-2', 'mgmt-3'], id))).toEqual([
      'mgmt-3',
      'mgmt-1',
      'mgmt-2',
      'mgmt-1',
      'mgmt-1',
      'mgmt-3',
      'mgmt-1',
      'mgmt-2',
    ]);
    expect(() => spreadOver([], 'x')).toThrow('at least one management cluster');
  });

  it('reads a place from placement data: the default cluster when none is named, nothing when unusable', () => {
    expect(placementOf({ managementCluster: 'mgmt-2', namespace: 'clusters-a' }, 'mgmt-1')).toEqual(
      {
        managementCluster: 'mgmt-2',
        namespace: 'clusters-a',
      },
    );
    expect(placementOf({ namespace: 'clusters-a' }, 'mgmt-1')).toEqual({
      managementCluster: 'mgmt-1',
      namespace: 'clusters-a',
    });
    expect(placementOf({ namespace: 'Not_A_Label' }, 'mgmt-1')).toBeUndefined();
    expect(placementOf({ managementCluster: 'MGMT', namespace: 'a' }, 'mgmt-1')).toBeUndefined();
    expect(placementOf(undefined, 'mgmt-1')).toBeUndefined();
  });
});

describe('the timeline across management clusters', () => {
  const line = (file: string, metadata: Record<string, unknown>, message = '') =>
    timelineEvents({ source: path.join('/tmp/stack/logs', file), json: { message, metadata } });

  it('names the management cluster each Secret went to', () => {
    expect(
      line(
        path.join('jobs', 'pullsecret-job-x.log'),
        {
          cluster_id: 'c1',
          phase: 'kubernetes',
          operation: 'create-secret',
          management_cluster: 'mgmt-2',
          namespace: 'clusters-c1',
          k8s_secret: 'c1-pull-secret',
        },
        'Kubernetes Secret created',
      ),
    ).toEqual([
      {
        component: 'job',
        clusterId: 'c1',
        text: 'Kubernetes Secret created: mgmt-2 clusters-c1/c1-pull-secret',
      },
    ]);
  });

  it('shows the HyperShift steps', () => {
    const where = {
      cluster_id: 'c1',
      management_cluster: 'mgmt-2',
      namespace: 'clusters-c1',
      hosted_cluster: 'demo',
    };
    expect(
      line('hypershift.log', {
        ...where,
        event: 'hostedcluster-created',
        pull_secret_name: 'c1-pull-secret',
      })[0]?.text,
    ).toBe('HostedCluster created: mgmt-2 clusters-c1/demo (spec.pullSecret.name c1-pull-secret)');
    expect(line('hypershift.log', { ...where, event: 'hostedcluster-deleted' })[0]?.text).toBe(
      'HostedCluster deleted: mgmt-2 clusters-c1/demo',
    );
    expect(
      line('hypershift.log', {
        cluster_id: 'c1',
        event: 'reported',
        generation: 1,
        available: 'True',
        reason: 'PullSecretValid',
      })[0],
    ).toEqual({
      component: 'hypershift',
      clusterId: 'c1',
      text: 'status reported at generation 1: Available=True (PullSecretValid)',
    });
    expect(
      line('hypershift.log', {
        cluster_id: 'c1',
        event: 'reported',
        generation: 1,
        available: 'False',
        reason: 'PreconditionsNotMet',
        detail: 'Waiting for pullsecret',
      })[0]?.text,
    ).toBe(
      'status reported at generation 1: Available=False (PreconditionsNotMet): Waiting for pullsecret',
    );
  });
});
