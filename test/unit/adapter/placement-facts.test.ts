import { clusterFacts } from '../../../functions/adapter/decision/cluster-facts';
import { loadAdapterConfig } from '../../../functions/adapter/config/config';
import {
  executionEnv,
  type LaunchRequest,
} from '../../../functions/adapter/cloud-run/execution-env';
import { renderNamespace } from '../../../functions/adapter/decision/namespace-template';
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

describe('the management namespace: placement wins, else MANAGEMENT_NAMESPACE_TEMPLATE', () => {
  it('defaults to clusters-{id}, as seed 000 says', () => {
    expect(loadAdapterConfig(adapterEnv).namespaceTemplate).toBe('clusters-{id}');
    expect(clusterFacts(cluster, []).namespace).toEqual({ ok: true, value: 'clusters-cls-1' });
  });

  it('replaces {id} and {name}, every occurrence; a namespace other than clusters-{id} is refused (the fence admits only that)', () => {
    expect(renderNamespace('hc-{name}-{id}', cluster)).toBe('hc-prod-cls-1');
    expect(renderNamespace('{id}-{id}', cluster)).toBe('cls-1-cls-1');
    expect(clusterFacts(cluster, [], 'clusters-{id}').namespace).toEqual({
      ok: true,
      value: 'clusters-cls-1',
    });
    const other = clusterFacts(cluster, [], '{name}-{id}').namespace;
    expect(other.ok).toBe(false);
    expect(!other.ok && other.problem).toMatch(
      /^InvalidManagementNamespace: MANAGEMENT_NAMESPACE_TEMPLATE "\{name\}-\{id\}" gives "prod-cls-1", not this cluster's management namespace "clusters-cls-1"/,
    );
  });

  it("takes placement's data.namespace over the template, when it is this cluster's own", () => {
    expect(
      clusterFacts(cluster, [placement({ namespace: 'clusters-cls-1' })], '{name}').namespace,
    ).toEqual({ ok: true, value: 'clusters-cls-1' });
    // Empty or null means "placement did not say": the template decides.
    expect(clusterFacts(cluster, [placement({ namespace: '' })]).namespace).toEqual({
      ok: true,
      value: 'clusters-cls-1',
    });
  });

  it('a deleting cluster is cleaned up whatever placement reports: launched for its own namespace', () => {
    const deleting = { ...cluster, deleted_time: '2026-01-01T00:00:00Z' };
    expect(clusterFacts(deleting, [placement({ namespace: 'kube-system' })]).namespace).toEqual({
      ok: true,
      value: 'clusters-cls-1',
    });
  });

  it.each(['kube-system', 'clusters-cls-2', 'ns-a'])(
    "a forged placement data.namespace (%s: another cluster's, a system namespace) is refused, naming the rule",
    (forged) => {
      const facts = clusterFacts(cluster, [placement({ namespace: forged })]);
      expect(facts.namespace.ok).toBe(false);
      expect(!facts.namespace.ok && facts.namespace.problem).toContain(
        `InvalidManagementNamespace: the placement adapter's data.namespace "${forged}" is not this cluster's management namespace "clusters-cls-1"`,
      );
    },
  );

  it('refuses a template result that is not a DNS label, naming the template and the result', () => {
    const facts = clusterFacts({ ...cluster, name: '' }, [], '{name}');
    expect(facts.namespace.ok).toBe(false);
    expect(!facts.namespace.ok && facts.namespace.problem).toContain(
      'MANAGEMENT_NAMESPACE_TEMPLATE "{name}" gives ""',
    );
  });

  it('rejects unknown placeholders and stray braces at start', () => {
    const problem = (template: string) => {
      try {
        loadAdapterConfig({ ...adapterEnv, MANAGEMENT_NAMESPACE_TEMPLATE: template });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error('expected a ConfigError');
    };
    expect(problem('clusters-{uuid}')).toContain(
      'MANAGEMENT_NAMESPACE_TEMPLATE: has unknown placeholder(s) {uuid}',
    );
    expect(problem('clusters-{id')).toContain('MANAGEMENT_NAMESPACE_TEMPLATE: has an unmatched');
    expect(
      loadAdapterConfig({ ...adapterEnv, MANAGEMENT_NAMESPACE_TEMPLATE: 'hc-{name}' })
        .namespaceTemplate,
    ).toBe('hc-{name}');
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
