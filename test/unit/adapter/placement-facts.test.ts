import { clusterFacts } from '../../../shared/hyperfleet/cluster-facts';
import { loadAdapterConfig } from '../../../functions/adapter/config/config';
import { executionEnv, type LaunchRequest } from '../../../shared/launch/execution-env';
import { DEFAULT_LAYOUT, type NamespaceLayout } from '../../../shared/pull-secret/namespace-layout';
import { ConfigError } from '../../../shared/errors';
import type { AdapterStatus, Cluster } from '../../../shared/hyperfleet/schemas';

const cluster: Cluster = {
  id: 'cls-1',
  name: 'prod',
  generation: 2,
  spec: { platform: { gcp: { projectID: 'customer-project' } } },
};
const placement = (data: Record<string, unknown>): AdapterStatus => ({
  adapter: 'placement',
  observed_generation: 2,
  conditions: [],
  data,
});
const adapterEnv = {
  HYPERFLEET_API_BASE_URL: 'http://127.0.0.1:8000',
  PULL_SECRET_JOB: 'projects/p/locations/l/jobs/j',
  LAUNCH_QUEUE: 'projects/demo-project/locations/us-central1/queues/pullsecret-launches',
  LAUNCHER_SERVICE_ACCOUNT: 'pullsecret-launcher@demo-project.iam.gserviceaccount.com',
};

describe("the management namespace: the operator's layout, placement checked against it", () => {
  const shared: NamespaceLayout = { template: 'clusters' };
  const migrating: NamespaceLayout = {
    template: 'clusters',
    migration: { previous: 'clusters-{id}', phase: 'keep-previous' },
  };

  it('defaults to clusters-{id}, as seed 000 says', () => {
    expect(loadAdapterConfig(adapterEnv).namespaceLayout).toEqual({ template: 'clusters-{id}' });
    expect(clusterFacts(cluster, []).namespace).toEqual({ ok: true, value: 'clusters-cls-1' });
  });

  it("one shared namespace (seed 004's clusters): every cluster's pull secret goes there", () => {
    expect(
      loadAdapterConfig({ ...adapterEnv, MANAGEMENT_NAMESPACE_TEMPLATE: 'clusters' })
        .namespaceLayout,
    ).toEqual(shared);
    expect(clusterFacts(cluster, [], shared).namespace).toEqual({ ok: true, value: 'clusters' });
    expect(clusterFacts(cluster, [placement({ namespace: 'clusters' })], shared).namespace).toEqual(
      { ok: true, value: 'clusters' },
    );
  });

  it("accepts placement's data.namespace when it agrees with the layout; empty or null means it did not say", () => {
    expect(clusterFacts(cluster, [placement({ namespace: 'clusters-cls-1' })]).namespace).toEqual({
      ok: true,
      value: 'clusters-cls-1',
    });
    expect(clusterFacts(cluster, [placement({ namespace: '' })]).namespace).toEqual({
      ok: true,
      value: 'clusters-cls-1',
    });
  });

  it("while migrating, placement may still report the previous layout's namespace; the write goes to the new one", () => {
    const facts = clusterFacts(cluster, [placement({ namespace: 'clusters-cls-1' })], migrating);
    expect(facts.namespace).toEqual({ ok: true, value: 'clusters' });
    expect(facts.keepsPreviousLayout).toBe(true);
    expect(clusterFacts(cluster, [], shared).keepsPreviousLayout).toBe(false);
  });

  it('a deleting cluster is cleaned up whatever placement reports: launched for its own namespace', () => {
    const deleting = { ...cluster, deleted_time: '2026-01-01T00:00:00Z' };
    expect(clusterFacts(deleting, [placement({ namespace: 'kube-system' })]).namespace).toEqual({
      ok: true,
      value: 'clusters-cls-1',
    });
  });

  it.each([
    ['kube-system', DEFAULT_LAYOUT],
    ['clusters-cls-2', DEFAULT_LAYOUT],
    ['clusters', DEFAULT_LAYOUT],
    ['clusters-cls-1', shared],
    ['kube-system', shared],
    ['../clusters', shared],
  ])(
    "a forged placement data.namespace (%s: another cluster's, a system namespace, the other layout's) is refused, naming the rule",
    (forged, layout) => {
      const facts = clusterFacts(cluster, [placement({ namespace: forged })], layout);
      expect(facts.namespace.ok).toBe(false);
      const own = layout.template.replace('{id}', 'cls-1');
      expect(!facts.namespace.ok && facts.namespace.problem).toContain(
        forged.startsWith('..')
          ? `InvalidManagementNamespace: the placement adapter's data.namespace ${JSON.stringify(forged)} is not a Kubernetes namespace name`
          : `InvalidManagementNamespace: the placement adapter's data.namespace ${JSON.stringify(forged)} is not this cluster's management namespace "${own}"`,
      );
    },
  );

  it('refuses a cluster id too long for the template, naming the template and the result', () => {
    const long = { ...cluster, id: 'x'.repeat(60) };
    const facts = clusterFacts(long, [], DEFAULT_LAYOUT);
    expect(facts.namespace.ok).toBe(false);
    expect(!facts.namespace.ok && facts.namespace.problem).toContain(
      'MANAGEMENT_NAMESPACE_TEMPLATE "clusters-{id}" gives "clusters-xxx',
    );
  });

  it('rejects at start a template that could steer a write or is not a namespace, saying why', () => {
    const problem = (env: Record<string, string>) => {
      try {
        loadAdapterConfig({ ...adapterEnv, ...env });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error('expected a ConfigError');
    };
    const template = (value: string) => problem({ MANAGEMENT_NAMESPACE_TEMPLATE: value });
    expect(template('hc-{name}')).toContain(
      'MANAGEMENT_NAMESPACE_TEMPLATE: has the placeholder {name}; only {id}',
    );
    expect(template('{id}-{id}')).toContain('has {id} 2 times');
    expect(template('{id}')).toContain('is {id} alone');
    expect(template('kube-system')).toContain('names a system namespace');
    expect(template('openshift-{id}')).toContain('names a system namespace');
    expect(template('default')).toContain('names a system namespace');
    expect(template('Clusters')).toContain('only lowercase letters, digits, "-" and {id}');
    expect(template('clusters-{id')).toContain('only lowercase letters, digits, "-" and {id}');
    expect(template('-{id}')).toContain('gives no DNS label for a cluster id');
    expect(template(`${'x'.repeat(30)}-{id}`)).toContain('leave room for a 36-character id');
    expect(problem({ PREVIOUS_MANAGEMENT_NAMESPACE_TEMPLATE: 'clusters' })).toContain(
      'NAMESPACE_MIGRATION_PHASE: is required with PREVIOUS_MANAGEMENT_NAMESPACE_TEMPLATE',
    );
    expect(problem({ NAMESPACE_MIGRATION_PHASE: 'keep-previous' })).toContain(
      'PREVIOUS_MANAGEMENT_NAMESPACE_TEMPLATE: is required with NAMESPACE_MIGRATION_PHASE',
    );
    expect(
      problem({
        PREVIOUS_MANAGEMENT_NAMESPACE_TEMPLATE: 'clusters-{id}',
        NAMESPACE_MIGRATION_PHASE: 'keep-previous',
      }),
    ).toContain('equals MANAGEMENT_NAMESPACE_TEMPLATE');
    expect(
      loadAdapterConfig({
        ...adapterEnv,
        MANAGEMENT_NAMESPACE_TEMPLATE: 'clusters',
        PREVIOUS_MANAGEMENT_NAMESPACE_TEMPLATE: 'clusters-{id}',
        NAMESPACE_MIGRATION_PHASE: 'keep-previous',
      }).namespaceLayout,
    ).toEqual(migrating);
  });
});

describe("the management cluster: placement's data.managementCluster, passed to the job", () => {
  it('is absent when placement names none (the job uses its default)', () => {
    expect(clusterFacts(cluster, []).managementCluster).toEqual({ ok: true });
    expect(clusterFacts(cluster, [placement({ namespace: 'ns' })]).managementCluster).toEqual({
      ok: true,
    });
  });

  it('is the name placement reports', () => {
    expect(
      clusterFacts(cluster, [placement({ managementCluster: 'us-central1-mgmt-1' })])
        .managementCluster,
    ).toEqual({ ok: true, value: 'us-central1-mgmt-1' });
  });

  it('is a problem naming the value when it is not a DNS label', () => {
    for (const bad of ['Mgmt_1', 42, 'a'.repeat(64)]) {
      const facts = clusterFacts(cluster, [placement({ managementCluster: bad })]);
      expect(facts.managementCluster.ok).toBe(false);
      expect(!facts.managementCluster.ok && facts.managementCluster.problem).toContain(
        `data.managementCluster ${JSON.stringify(String(bad).slice(0, 80))}`,
      );
    }
  });

  it('becomes the MANAGEMENT_CLUSTER override, omitted when there is none', () => {
    const request: LaunchRequest = {
      clusterId: 'cls-1',
      clusterName: 'prod',
      generation: 2,
      gcpProjectId: 'customer-project',
      namespace: 'clusters-cls-1',
      operation: 'apply',
      attempt: 1,
      launchId: 'launch-1',
      pullSecret: { source: 'cluster-spec', specPath: 'a', additionalSpecPath: 'b' },
    };
    expect(executionEnv(request)).not.toHaveProperty('MANAGEMENT_CLUSTER');
    expect(executionEnv({ ...request, managementCluster: 'mgmt-2' })).toMatchObject({
      MANAGEMENT_CLUSTER: 'mgmt-2',
      MANAGEMENT_NAMESPACE: 'clusters-cls-1',
    });
  });
});
