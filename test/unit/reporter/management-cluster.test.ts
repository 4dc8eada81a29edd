import { managementClusterOf } from '../../../shared/executions/execution-report';
import { planFromJobResult } from '../../../functions/reporter/report/report-outcomes';
import { buildStatus } from '../../../shared/status/status-builder';
import type { JobResult } from '../../../shared/job-result';

const JOB = 'projects/p/locations/us-central1/jobs/pullsecret-job';

describe('the reporter and management clusters', () => {
  it('reports UnknownManagementCluster as a permanent failure: Available=False with the message', () => {
    const message =
      'The execution targets management cluster "mgmt-9", which the pull secret job does not know (known: mgmt-1, mgmt-2); nothing was written.';
    const result: JobResult = {
      outcome: 'failed',
      operation: 'apply',
      dry_run: false,
      cluster_id: 'cls-1',
      generation: 2,
      execution: 'e-1',
      attempt: 1,
      phases: [],
      reason: 'UnknownManagementCluster',
      message,
      failure_kind: 'permanent',
      durations_ms: {},
      finished_at: '2026-11-23T10:00:00Z',
    };
    const plan = planFromJobResult(result, JOB);
    if (!('outcome' in plan)) throw new Error(`expected a report, got ${plan.skip}`);
    const body = buildStatus(plan.outcome, 2, new Date('2026-11-23T10:00:00Z'));
    expect(body.conditions.find((c) => c.type === 'Available')).toEqual({
      type: 'Available',
      status: 'False',
      reason: 'UnknownManagementCluster',
      message,
    });
    expect(body.data).toMatchObject({
      failure_kind: 'permanent',
      reason: 'UnknownManagementCluster',
    });
  });

  it.each([
    [{ MANAGEMENT_CLUSTER: 'mgmt-2', DEFAULT_MANAGEMENT_CLUSTER: 'mgmt-1' }, 'mgmt-2'],
    [{ DEFAULT_MANAGEMENT_CLUSTER: 'mgmt-1' }, 'mgmt-1'],
    // The file form: the default (or the execution's own) names it; the file is never read.
    [
      {
        MANAGEMENT_CLUSTERS_FILE: '/nonexistent/clusters.json',
        DEFAULT_MANAGEMENT_CLUSTER: 'mgmt-1',
      },
      'mgmt-1',
    ],
    [
      { MANAGEMENT_CLUSTERS_FILE: '/nonexistent/clusters.json', MANAGEMENT_CLUSTER: 'mgmt-2' },
      'mgmt-2',
    ],
    [{ MANAGEMENT_CLUSTERS: '{"only":{"kubeconfig":"/k"}}' }, 'only'],
    [{ KUBECONFIG: '/k' }, 'default'],
    [{ MANAGEMENT_CLUSTER_ENDPOINT: 'https://10.0.0.1' }, 'default'],
  ])('names the management cluster of an execution from its environment %j', (env, name) => {
    expect(managementClusterOf(env)).toEqual({ managementCluster: name });
  });

  it.each([
    [{ MANAGEMENT_CLUSTERS: '{"a":{"kubeconfig":"/k"},"b":{"kubeconfig":"/k"}}' }],
    [{ MANAGEMENT_CLUSTERS: 'not json' }],
    [{ MANAGEMENT_CLUSTERS_FILE: '/nonexistent/clusters.json' }],
    [{}],
  ])('names none when the environment does not tell %j', (env) => {
    expect(managementClusterOf(env)).toEqual({});
  });
});
