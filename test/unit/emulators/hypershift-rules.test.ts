import { decideHyperShift } from '../../../emulators/pullsecret/hypershift/decide';
import { hostedClusterManifest } from '../../../emulators/pullsecret/hypershift/hosted-cluster';
import { checkPullSecret } from '../../../emulators/pullsecret/hypershift/pull-secret-check';
import { hyperShiftReport } from '../../../emulators/pullsecret/hypershift/report';
import type { AdapterStatus } from '../../../shared/hyperfleet/schemas';

const where = { managementCluster: 'mgmt-2', namespace: 'clusters-c1', name: 'c1-pull-secret' };
const encode = (text: string) => Buffer.from(text).toString('base64');
const secret = (type: string, data?: Record<string, string>) => ({
  metadata: { name: where.name, namespace: where.namespace },
  type,
  ...(data ? { data } : {}),
});

describe('the pull secret checks HyperShift makes', () => {
  it.each([
    ['absent', undefined, 'PullSecretNotFound', 'not found'],
    ['of another type', secret('Opaque', {}), 'PullSecretInvalid', 'is of type Opaque'],
    [
      'without .dockerconfigjson',
      secret('kubernetes.io/dockerconfigjson', {}),
      'PullSecretInvalid',
      'no .dockerconfigjson',
    ],
    [
      'not JSON',
      secret('kubernetes.io/dockerconfigjson', { '.dockerconfigjson': encode('{not json') }),
      'PullSecretInvalid',
      'does not parse as JSON',
    ],
    [
      'without auths',
      secret('kubernetes.io/dockerconfigjson', {
        '.dockerconfigjson': encode('{"registries":{}}'),
      }),
      'PullSecretInvalid',
      'without an "auths" object',
    ],
  ])('a Secret %s is %s, named in the message', (_what, object, reason, text) => {
    const check = checkPullSecret(object, where);
    expect(check).toMatchObject({ ok: false, reason });
    expect(check.ok ? '' : check.message).toContain(text);
    expect(check.ok ? '' : check.message).toContain(
      'clusters-c1/c1-pull-secret in management cluster mgmt-2',
    );
  });

  it('accepts a dockerconfigjson with auths and never repeats its content', () => {
    const auths = encode('{"auths":{"quay.io":{"auth":"c2VjcmV0"},"r.example.com":{}}}');
    expect(
      checkPullSecret(
        secret('kubernetes.io/dockerconfigjson', { '.dockerconfigjson': auths }),
        where,
      ),
    ).toEqual({ ok: true, registries: 2 });
    const bad = checkPullSecret(
      secret('kubernetes.io/dockerconfigjson', { '.dockerconfigjson': encode('c2VjcmV0 oops') }),
      where,
    );
    expect(JSON.stringify(bad)).not.toContain('c2VjcmV0');
  });
});

const status = (
  adapter: string,
  generation: number,
  available: 'True' | 'False',
  data?: Record<string, unknown>,
): AdapterStatus => ({
  adapter,
  observed_generation: generation,
  conditions: [{ type: 'Available', status: available, reason: 'r', message: 'm' }],
  ...(data ? { data } : {}),
});
const ours = {
  management_cluster: 'mgmt-2',
  namespace: 'clusters-c1',
  pull_secret_name: 'c1-pull-secret',
};
const decide = (statuses: AdapterStatus[], generation = 2, deleting = false) =>
  decideHyperShift({
    generation,
    deleting,
    statuses,
    knownClusters: ['mgmt-1', 'mgmt-2'],
    defaultCluster: 'mgmt-1',
  });

describe('what the simulated HyperShift adapter decides', () => {
  it('waits for pullsecret Available=True at the current generation', () => {
    expect(decide([])).toMatchObject({
      kind: 'wait',
      message: expect.stringContaining('not reported'),
    });
    expect(decide([status('pullsecret', 1, 'True', ours)])).toMatchObject({
      kind: 'wait',
      message: expect.stringContaining('Available=True at generation 1'),
    });
    expect(decide([status('pullsecret', 2, 'False', ours)]).kind).toBe('wait');
  });

  it('puts the HostedCluster where our status data says the Secret is', () => {
    expect(decide([status('pullsecret', 2, 'True', ours)])).toEqual({
      kind: 'apply',
      placement: {
        managementCluster: 'mgmt-2',
        namespace: 'clusters-c1',
        pullSecretName: 'c1-pull-secret',
      },
    });
    const { management_cluster: _none, ...single } = ours;
    expect(decide([status('pullsecret', 2, 'True', single)])).toMatchObject({
      kind: 'apply',
      placement: { managementCluster: 'mgmt-1' },
    });
  });

  it('reads the place from kubernetes_secret when the top-level fields are absent', () => {
    const data = {
      pull_secret_name: 'c1-pull-secret',
      kubernetes_secret: {
        management_cluster: 'mgmt-2',
        namespace: 'clusters-c1',
        name: 'c1-pull-secret',
      },
    };
    expect(decide([status('pullsecret', 2, 'True', data)])).toEqual({
      kind: 'apply',
      placement: {
        managementCluster: 'mgmt-2',
        namespace: 'clusters-c1',
        pullSecretName: 'c1-pull-secret',
      },
    });
  });

  it('refuses an unknown management cluster and incomplete data, naming what is wrong', () => {
    expect(
      decide([status('pullsecret', 2, 'True', { ...ours, management_cluster: 'mgmt-9' })]),
    ).toEqual({
      kind: 'refuse',
      reason: 'UnknownManagementCluster',
      message: expect.stringContaining(
        '"mgmt-9" is not one HyperShift runs on (known: mgmt-1, mgmt-2)',
      ),
    });
    expect(decide([status('pullsecret', 2, 'True', { namespace: 'clusters-c1' })])).toMatchObject({
      kind: 'refuse',
      reason: 'PullSecretStatusIncomplete',
      message: expect.stringContaining('pull_secret_name'),
    });
  });

  it('finalizes a cluster being deleted whatever the statuses say', () => {
    expect(decide([status('pullsecret', 2, 'True', ours)], 3, true)).toEqual({ kind: 'finalize' });
  });
});

describe('the HostedCluster and the status report', () => {
  it('names the HostedCluster after the cluster, beside the Secret it points at', () => {
    const manifest = hostedClusterManifest({
      clusterId: 'c1',
      clusterName: 'demo',
      namespace: 'clusters-c1',
      pullSecretName: 'c1-pull-secret',
      spec: {
        platform: { gcp: { projectID: 'p-1', region: 'europe-west1' } },
        release: { version: '4.22.1' },
      },
    });
    expect(manifest).toMatchObject({
      apiVersion: 'hypershift.openshift.io/v1beta1',
      kind: 'HostedCluster',
      metadata: {
        name: 'demo',
        namespace: 'clusters-c1',
        labels: { 'hyperfleet.io/cluster-id': 'c1' },
      },
      spec: {
        pullSecret: { name: 'c1-pull-secret' },
        platform: { type: 'GCP', gcp: { project: 'p-1', region: 'europe-west1' } },
        release: { image: 'quay.io/openshift-release-dev/ocp-release:4.22.1-x86_64' },
        infraID: 'c1',
      },
    });
  });

  const now = new Date('2026-01-01T00:00:00Z');
  const placement = {
    managementCluster: 'mgmt-2',
    namespace: 'clusters-c1',
    pullSecretName: 'c1-pull-secret',
  };
  const conditions = (report: ReturnType<typeof hyperShiftReport>) =>
    report.conditions.map((c) => `${c.type}=${c.status}:${c.reason}`);

  it('reports the live contract: Applied, Available, Health at the generation, with the place in data', () => {
    const report = hyperShiftReport(
      3,
      { kind: 'applied', placement, hostedCluster: 'demo', check: { ok: true, registries: 2 } },
      now,
    );
    expect(report).toMatchObject({
      adapter: 'hypershift',
      observed_generation: 3,
      observed_time: now.toISOString(),
      data: {
        management_cluster: 'mgmt-2',
        namespace: 'clusters-c1',
        hosted_cluster: 'demo',
        pull_secret_name: 'c1-pull-secret',
      },
    });
    expect(conditions(report)).toEqual([
      'Applied=True:HostedClusterApplied',
      'Available=True:PullSecretValid',
      'Health=True:NoErrors',
    ]);
  });

  it('says PullSecretNotFound (healthy, may appear) and PullSecretInvalid (unhealthy)', () => {
    const failed = (reason: 'PullSecretNotFound' | 'PullSecretInvalid') =>
      conditions(
        hyperShiftReport(
          1,
          {
            kind: 'applied',
            placement,
            hostedCluster: 'demo',
            check: { ok: false, reason, message: 'm' },
          },
          now,
        ),
      );
    expect(failed('PullSecretNotFound')).toEqual([
      'Applied=True:HostedClusterApplied',
      'Available=False:PullSecretNotFound',
      'Health=True:NoErrors',
    ]);
    expect(failed('PullSecretInvalid')).toEqual([
      'Applied=True:HostedClusterApplied',
      'Available=False:PullSecretInvalid',
      'Health=False:PullSecretInvalid',
    ]);
  });

  it('reports Finalized=True CleanupConfirmed once no HostedCluster is left, and non-empty reasons everywhere', () => {
    const outcomes = [
      { kind: 'refused', reason: 'UnknownManagementCluster', message: 'u' },
      { kind: 'apply-failed', message: 'a' },
      { kind: 'finalizing', message: 'f' },
      { kind: 'finalized', removed: 1 },
    ] as const;
    for (const outcome of outcomes)
      for (const c of hyperShiftReport(4, outcome, now).conditions) {
        expect(c.reason).not.toBe('');
        expect(c.message).not.toBe('');
      }
    expect(conditions(hyperShiftReport(4, { kind: 'finalized', removed: 1 }, now))).toContain(
      'Finalized=True:CleanupConfirmed',
    );
  });
});
