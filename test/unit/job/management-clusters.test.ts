import { loadJobConfig } from '../../../functions/pull-secret-job/config';
import { ConfigError } from '../../../shared/errors';

const base = {
  CLUSTER_ID: 'cls-123',
  GCP_PROJECT_ID: 'customer-prod-12345',
  PULL_SECRET_DATA: '{"auths":{}}',
  MANAGEMENT_NAMESPACE: 'clusters-cls-123',
};
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const GATEWAY =
  'https://connectgateway.googleapis.com/v1/projects/123/locations/global/gkeMemberships/mgmt-2';
const clusters = (value: unknown) => ({ ...base, MANAGEMENT_CLUSTERS: JSON.stringify(value) });

function configError(env: Record<string, string>): string {
  try {
    loadJobConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('MANAGEMENT_CLUSTERS: the management clusters by name', () => {
  it('reads the three forms: GKE (endpoint + CA), Connect Gateway (endpoint), kubeconfig (+ context)', () => {
    const config = loadJobConfig({
      ...clusters({
        'us-central1-mgmt-1': {
          endpoint: 'https://34.1.2.3',
          caCert: Buffer.from(PEM).toString('base64'),
        },
        'mgmt-2': { endpoint: GATEWAY },
        local: { kubeconfig: '/tmp/kubeconfig', context: 'mgmt-3' },
        plain: { kubeconfig: '/tmp/other' },
      }),
      DEFAULT_MANAGEMENT_CLUSTER: 'mgmt-2',
    });
    expect(config.kubernetes?.clusters).toEqual({
      'us-central1-mgmt-1': { kind: 'google', endpoint: 'https://34.1.2.3', caPem: PEM },
      'mgmt-2': { kind: 'google', endpoint: GATEWAY },
      local: { kind: 'kubeconfig', path: '/tmp/kubeconfig', context: 'mgmt-3' },
      plain: { kind: 'kubeconfig', path: '/tmp/other' },
    });
    expect(config.kubernetes?.cluster).toBe('mgmt-2');
    expect(config.kubernetes?.access).toEqual({ kind: 'google', endpoint: GATEWAY });
  });

  it('targets the execution MANAGEMENT_CLUSTER, else DEFAULT_MANAGEMENT_CLUSTER, else the only entry', () => {
    const two = clusters({ 'mgmt-1': { kubeconfig: '/k1' }, 'mgmt-2': { kubeconfig: '/k2' } });
    expect(
      loadJobConfig({ ...two, DEFAULT_MANAGEMENT_CLUSTER: 'mgmt-1', MANAGEMENT_CLUSTER: 'mgmt-2' })
        .kubernetes?.cluster,
    ).toBe('mgmt-2');
    expect(
      loadJobConfig({ ...two, DEFAULT_MANAGEMENT_CLUSTER: 'mgmt-1' }).kubernetes?.cluster,
    ).toBe('mgmt-1');
    expect(loadJobConfig(clusters({ only: { kubeconfig: '/k' } })).kubernetes?.cluster).toBe(
      'only',
    );
  });

  it('leaves an unknown MANAGEMENT_CLUSTER to the run (UnknownManagementCluster), not to the config', () => {
    const config = loadJobConfig({
      ...clusters({ 'mgmt-1': { kubeconfig: '/k1' } }),
      MANAGEMENT_CLUSTER: 'mgmt-9',
    });
    expect(config.kubernetes?.cluster).toBe('mgmt-9');
    expect(config.kubernetes?.access).toBeUndefined();
  });

  it('keeps the single-cluster variables working as one cluster, named default or DEFAULT_MANAGEMENT_CLUSTER', () => {
    expect(loadJobConfig({ ...base, KUBECONFIG: '/k' }).kubernetes).toMatchObject({
      cluster: 'default',
      clusters: { default: { kind: 'kubeconfig', path: '/k' } },
    });
    const named = loadJobConfig({
      ...base,
      MANAGEMENT_CLUSTER_ENDPOINT: 'https://10.0.0.1',
      DEFAULT_MANAGEMENT_CLUSTER: 'us-east1-mgmt',
      MANAGEMENT_CLUSTER: 'us-east1-mgmt',
    });
    expect(named.kubernetes).toMatchObject({
      cluster: 'us-east1-mgmt',
      clusters: { 'us-east1-mgmt': { kind: 'google', endpoint: 'https://10.0.0.1' } },
    });
  });

  it.each([
    ['not JSON', '{mgmt-1:', /MANAGEMENT_CLUSTERS: is not valid JSON; it must be an object/],
    ['an array', '[]', /MANAGEMENT_CLUSTERS: must be a JSON object of management clusters/],
    ['empty', '{}', /MANAGEMENT_CLUSTERS: must name at least one management cluster/],
    [
      'a bad name',
      '{"Mgmt_1":{"kubeconfig":"/k"}}',
      /MANAGEMENT_CLUSTERS: entry "Mgmt_1": the name must be a DNS label/,
    ],
    [
      'an entry that is not an object',
      '{"mgmt-1":"https://x"}',
      /MANAGEMENT_CLUSTERS: entry "mgmt-1": must be an object/,
    ],
    [
      'both forms',
      '{"mgmt-1":{"kubeconfig":"/k","endpoint":"https://x"}}',
      /entry "mgmt-1": has both "kubeconfig" and "endpoint"; use one form/,
    ],
    [
      'neither form',
      '{"mgmt-1":{"caCert":"x"}}',
      /entry "mgmt-1": needs "endpoint" \(GKE or Connect Gateway\) or "kubeconfig"/,
    ],
    [
      'an http endpoint',
      '{"mgmt-1":{"endpoint":"http://10.0.0.1"}}',
      /entry "mgmt-1", field "endpoint": must be an https:\/\/ URL/,
    ],
    [
      'a CA that is not PEM',
      '{"mgmt-1":{"endpoint":"https://10.0.0.1","caCert":"bm90IGEgY2VydA=="}}',
      /entry "mgmt-1", field "caCert": must be a PEM certificate/,
    ],
    [
      'an unknown field (a typo)',
      '{"mgmt-1":{"endpoint":"https://10.0.0.1","caCrt":"x"}}',
      /entry "mgmt-1": Unrecognized key: "caCrt"/,
    ],
    [
      'an empty context',
      '{"mgmt-1":{"kubeconfig":"/k","context":""}}',
      /entry "mgmt-1", field "context": must name a context/,
    ],
  ])('rejects %s, naming the entry and the field', (_name, value, expected) => {
    expect(configError({ ...base, MANAGEMENT_CLUSTERS: value })).toMatch(expected);
  });

  it('reports every bad entry at once and never echoes a value', () => {
    const message = configError(
      clusters({
        'mgmt-1': { endpoint: 'http://secret-host.example' },
        'mgmt-2': { endpoint: 'https://10.0.0.1', caCert: 'c2VjcmV0LWNh' },
      }),
    );
    expect(message).toMatch(/entry "mgmt-1", field "endpoint"/);
    expect(message).toMatch(/entry "mgmt-2", field "caCert"/);
    expect(message).not.toContain('secret-host');
    expect(message).not.toContain('c2VjcmV0LWNh');
  });

  it.each([
    [
      { KUBECONFIG: '/k' },
      /MANAGEMENT_CLUSTERS: and KUBECONFIG are both set; describe every cluster as an entry of MANAGEMENT_CLUSTERS/,
    ],
    [
      { MANAGEMENT_CLUSTER_ENDPOINT: 'https://10.0.0.1', MANAGEMENT_CLUSTER_CA_CERT: PEM },
      /MANAGEMENT_CLUSTERS: and MANAGEMENT_CLUSTER_ENDPOINT, MANAGEMENT_CLUSTER_CA_CERT are both set/,
    ],
    [
      { DEFAULT_MANAGEMENT_CLUSTER: 'mgmt-3' },
      /DEFAULT_MANAGEMENT_CLUSTER: names "mgmt-3", which is not in MANAGEMENT_CLUSTERS \(mgmt-1, mgmt-2\)/,
    ],
    [{}, /DEFAULT_MANAGEMENT_CLUSTER: is required when MANAGEMENT_CLUSTERS has several entries/],
    [{ MANAGEMENT_CLUSTER: 'Mgmt 2' }, /MANAGEMENT_CLUSTER: must be a management cluster name/],
  ])('rejects conflicting or incomplete settings %j', (override, expected) => {
    const two = clusters({ 'mgmt-1': { kubeconfig: '/k1' }, 'mgmt-2': { kubeconfig: '/k2' } });
    expect(configError({ ...two, ...override })).toMatch(expected);
  });

  it('needs no default when the execution names its cluster, or when nothing is pushed', () => {
    const two = clusters({ 'mgmt-1': { kubeconfig: '/k1' }, 'mgmt-2': { kubeconfig: '/k2' } });
    expect(loadJobConfig({ ...two, MANAGEMENT_CLUSTER: 'mgmt-1' }).kubernetes?.cluster).toBe(
      'mgmt-1',
    );
    expect(loadJobConfig({ ...two, SKIP_KUBERNETES: 'true' }).kubernetes).toBeUndefined();
  });
});
