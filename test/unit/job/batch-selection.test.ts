// Which clusters a batch task re-applies (functions/pull-secret-job/batch/batch-selection.ts): only
// converged, idle clusters placed where placement still puts them, matching the selector; the
// per-cluster run is the adapter's resync launch (next attempt, same place, pinned default).
import {
  chooseForBatch,
  type BatchSelectionContext,
} from '../../../functions/pull-secret-job/batch/batch-selection';
import { parseBatchSelector, type BatchSelector } from '../../../shared/batch/batch-request';
import type { AdapterStatus, Cluster } from '../../../shared/hyperfleet/schemas';

const DEFAULT = 'projects/platform/secrets/default-pull-secret/versions/7';
const clusterOn = (id: string, pullSecret?: string, extra: Partial<Cluster> = {}): Cluster => ({
  id,
  name: `name-${id}`,
  generation: 3,
  spec: {
    platform: { gcp: { projectID: 'customer-project' } },
    ...(pullSecret ? { pullSecret: { data: pullSecret } } : {}),
  },
  ...extra,
});
const ownStatus = (
  overrides: {
    available?: 'True' | 'False';
    applied?: string;
    generation?: number;
    data?: Record<string, unknown>;
  } = {},
): AdapterStatus => ({
  adapter: 'pullsecret',
  observed_generation: overrides.generation ?? 3,
  conditions: [
    { type: 'Applied', status: 'True', reason: overrides.applied ?? 'JobSucceeded' },
    { type: 'Available', status: overrides.available ?? 'True', reason: 'PullSecretProvisioned' },
    { type: 'Health', status: 'True', reason: 'NoErrors' },
  ] as AdapterStatus['conditions'],
  data: { attempt: 2, management_cluster: 'mgmt-1', namespace: 'clusters-c1', ...overrides.data },
});
const placement = (managementCluster: string): AdapterStatus => ({
  adapter: 'placement',
  observed_generation: 3,
  conditions: [],
  data: { managementCluster },
});
const context = (
  selector: BatchSelector,
  defaultVersion: string | null = DEFAULT,
): BatchSelectionContext => ({
  selector,
  layout: { template: 'clusters-{id}' },
  pullSecret: {
    specPath: 'spec.pullSecret.data',
    additionalSpecPath: 'spec.pullSecret.additional',
    ...(defaultVersion ? { defaultVersion } : {}),
  },
  launchIdPrefix: 'batch-pullsecret-job-abc',
});
const selector = (text: string) => {
  const parsed = parseBatchSelector(text);
  if ('problem' in parsed) throw new Error(parsed.problem);
  return parsed;
};

describe('a batch task chooses converged clusters and runs them as the adapter would', () => {
  it('a converged cluster on the default: the next attempt, same place, the pinned default version', () => {
    const choice = chooseForBatch(
      clusterOn('c1'),
      [ownStatus(), placement('mgmt-1')],
      context(selector('default')),
    );
    expect(choice).toEqual({
      kind: 'apply',
      request: {
        clusterId: 'c1',
        clusterName: 'name-c1',
        generation: 3,
        gcpProjectId: 'customer-project',
        namespace: 'clusters-c1',
        managementCluster: 'mgmt-1',
        operation: 'apply',
        attempt: 3,
        launchId: 'batch-pullsecret-job-abc-c1',
        pullSecret: {
          source: 'secret-manager',
          version: DEFAULT,
          additionalSpecPath: 'spec.pullSecret.additional',
        },
      },
    });
  });

  it('--default leaves a cluster with its own pull secret alone; --all runs it from its spec', () => {
    const statuses = [ownStatus(), placement('mgmt-1')];
    expect(
      chooseForBatch(clusterOn('c1', 'X'), statuses, context(selector('default'))),
    ).toMatchObject({
      kind: 'skip',
      reason: 'not-selected',
    });
    expect(chooseForBatch(clusterOn('c1', 'X'), statuses, context(selector('all')))).toMatchObject({
      kind: 'apply',
      request: { pullSecret: { source: 'cluster-spec', specPath: 'spec.pullSecret.data' } },
    });
    expect(
      chooseForBatch(clusterOn('c1'), statuses, context(selector('default'), null)),
    ).toMatchObject({
      kind: 'skip',
      why: 'no default pull secret is configured',
    });
  });

  it.each([
    ['not converged', [ownStatus({ available: 'False' }), placement('mgmt-1')], {}],
    ['an older generation', [ownStatus({ generation: 2 }), placement('mgmt-1')], {}],
    ['a run queued', [ownStatus({ applied: 'JobQueued' }), placement('mgmt-1')], {}],
    ['a run launched', [ownStatus({ applied: 'JobLaunched' }), placement('mgmt-1')], {}],
    ['no status', [placement('mgmt-1')], {}],
    ['placement moved', [ownStatus(), placement('mgmt-2')], {}],
    ['being deleted', [ownStatus(), placement('mgmt-1')], { deleted_time: '2026-11-29T10:00:00Z' }],
  ] as const)('%s: left to the adapter, whose rules decide it', (_what, statuses, extra) => {
    expect(
      chooseForBatch(
        clusterOn('c1', undefined, extra as Partial<Cluster>),
        [...statuses] as AdapterStatus[],
        context(selector('all')),
      ),
    ).toMatchObject({
      kind: 'skip',
      reason: 'adapter',
    });
  });

  it('--management-cluster takes what our status says is there; cluster ids take only those', () => {
    const statuses = [ownStatus(), placement('mgmt-1')];
    expect(
      chooseForBatch(clusterOn('c1'), statuses, context(selector('management-cluster=mgmt-1')))
        .kind,
    ).toBe('apply');
    expect(
      chooseForBatch(clusterOn('c1'), statuses, context(selector('management-cluster=mgmt-2')))
        .kind,
    ).toBe('skip');
    expect(
      chooseForBatch(clusterOn('c1'), statuses, context(selector('clusters=c2,c1'))).kind,
    ).toBe('apply');
    expect(chooseForBatch(clusterOn('c1'), statuses, context(selector('clusters=c2'))).kind).toBe(
      'skip',
    );
  });

  it("a hostile placement namespace never steers the write: the layout decides, a mismatch is the adapter's", () => {
    const hostile: AdapterStatus = {
      ...placement('mgmt-1'),
      data: { managementCluster: 'mgmt-1', namespace: 'kube-system' },
    };
    expect(
      chooseForBatch(clusterOn('c1'), [ownStatus(), hostile], context(selector('all'))),
    ).toMatchObject({
      kind: 'skip',
      reason: 'adapter',
    });
    const forgedOwn = ownStatus({ data: { namespace: 'kube-system' } });
    expect(
      chooseForBatch(clusterOn('c1'), [forgedOwn, placement('mgmt-1')], context(selector('all'))),
    ).toMatchObject({
      kind: 'skip',
      reason: 'adapter',
    });
  });
});

describe('the selector: text form at every boundary', () => {
  it.each(['all', 'default', 'management-cluster=mgmt-1', 'clusters=a1,b-2'])(
    '%s round-trips',
    (text) => {
      expect(parseBatchSelector(text)).not.toHaveProperty('problem');
    },
  );
  it.each([
    ['a word', 'everything', /is not a selector/],
    ['a bad name', 'management-cluster=Bad_Name', /not a DNS label/],
    ['a path', 'clusters=a1,../etc', /is not a cluster id/],
    [
      '201 ids',
      `clusters=${Array.from({ length: 201 }, (_, i) => `c${i}`).join(',')}`,
      /at most 200/,
    ],
  ])('%s is refused, saying why', (_what, text, problem) => {
    expect(parseBatchSelector(text)).toEqual({ problem: expect.stringMatching(problem) });
  });
});
