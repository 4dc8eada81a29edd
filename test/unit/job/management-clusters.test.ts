import { loadJobConfig } from '../../../functions/pull-secret-job/config/config';
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

  describe('the three ways to reach a cluster with the Google access token', () => {
    const DNS = 'https://gke-0123456789abcdef0123456789abcdef0123-123456789.us-central1.gke.goog';
    const CA = Buffer.from(PEM).toString('base64');

    it('takes an IP endpoint with its CA, a DNS-based endpoint and a (regional) gateway URL without', () => {
      const regional =
        'https://us-central1-connectgateway.googleapis.com/v1/projects/123456789/locations/us-central1/gkeMemberships/mgmt-4';
      const config = loadJobConfig({
        ...clusters({
          'mgmt-1': { endpoint: 'https://34.1.2.3', caCert: CA },
          'mgmt-2': { endpoint: GATEWAY },
          'mgmt-3': { endpoint: DNS },
          'mgmt-4': { endpoint: regional },
          // Any other host (a proxy, a private name) with or without a CA.
          'mgmt-5': { endpoint: 'https://mgmt-5.internal.example.com', caCert: CA },
        }),
        DEFAULT_MANAGEMENT_CLUSTER: 'mgmt-3',
      });
      expect(config.kubernetes?.clusters).toEqual({
        'mgmt-1': { kind: 'google', endpoint: 'https://34.1.2.3', caPem: PEM },
        'mgmt-2': { kind: 'google', endpoint: GATEWAY },
        'mgmt-3': { kind: 'google', endpoint: DNS },
        'mgmt-4': { kind: 'google', endpoint: regional },
        'mgmt-5': { kind: 'google', endpoint: 'https://mgmt-5.internal.example.com', caPem: PEM },
      });
    });

    it.each([
      [
        'a DNS-based endpoint with a CA',
        { endpoint: DNS, caCert: CA },
        /entry "mgmt-1": the endpoint is a GKE cluster's DNS-based endpoint \(\*\.gke\.goog\), which serves a publicly trusted certificate; with "caCert" the job would trust only that CA and TLS would fail: drop "caCert" from the entry/,
      ],
      [
        'a DNS-based endpoint in capitals with a PEM CA',
        { endpoint: DNS.toUpperCase().replace('HTTPS', 'https'), caCert: PEM },
        /entry "mgmt-1": the endpoint is a GKE cluster's DNS-based endpoint/,
      ],
      [
        'a gateway URL with a CA',
        { endpoint: GATEWAY, caCert: CA },
        /entry "mgmt-1": the endpoint is Connect Gateway, which serves a publicly trusted certificate; .*drop "caCert" from the entry/,
      ],
      [
        'a gateway URL naming the project by id',
        { endpoint: GATEWAY.replace('/projects/123/', '/projects/fleet-host-project/') },
        /entry "mgmt-1", field "endpoint": is a Connect Gateway URL naming the fleet host project by its id; name it by its number .*\/v1\/projects\/PROJECT_NUMBER\/locations\/LOCATION\/gkeMemberships\/MEMBERSHIP/,
      ],
      [
        'a gateway URL of a non-GKE membership',
        { endpoint: GATEWAY.replace('gkeMemberships', 'memberships') },
        /entry "mgmt-1", field "endpoint": is a Connect Gateway URL but not a GKE membership's: it must be https:\/\/\[REGION-\]connectgateway\.googleapis\.com\/v1\/projects\/PROJECT_NUMBER/,
      ],
      [
        'a bare gateway host',
        { endpoint: 'https://connectgateway.googleapis.com' },
        /entry "mgmt-1", field "endpoint": is a Connect Gateway URL but not a GKE membership's/,
      ],
      [
        'a gateway URL with a query',
        { endpoint: `${GATEWAY}?x=1` },
        /entry "mgmt-1", field "endpoint": is a Connect Gateway URL but not a GKE membership's/,
      ],
      [
        'a regional gateway URL naming the project by id',
        {
          endpoint:
            'https://europe-west1-connectgateway.googleapis.com/v1/projects/fleet-host/locations/europe-west1/gkeMemberships/m',
        },
        /entry "mgmt-1", field "endpoint": is a Connect Gateway URL naming the fleet host project by its id/,
      ],
    ])(
      'refuses %s, naming the entry and what to do, echoing no value',
      (_name, entry, expected) => {
        const message = configError(clusters({ 'mgmt-1': entry }));
        expect(message).toMatch(expected);
        expect(message).not.toContain('fleet-host');
        expect(message).not.toContain('gke-0123456789');
        expect(message).not.toContain(CA);
      },
    );

    it('holds the single-cluster variables to the same rules', () => {
      expect(
        configError({
          ...base,
          MANAGEMENT_CLUSTER_ENDPOINT: DNS,
          MANAGEMENT_CLUSTER_CA_CERT: CA,
        }),
      ).toMatch(
        /MANAGEMENT_CLUSTER_CA_CERT: the endpoint is a GKE cluster's DNS-based endpoint .*drop MANAGEMENT_CLUSTER_CA_CERT/,
      );
      expect(
        configError({
          ...base,
          MANAGEMENT_CLUSTER_ENDPOINT: GATEWAY.replace('/projects/123/', '/projects/fleet-host/'),
        }),
      ).toMatch(
        /MANAGEMENT_CLUSTER_ENDPOINT: is a Connect Gateway URL naming the fleet host project by its id/,
      );
      expect(
        loadJobConfig({ ...base, MANAGEMENT_CLUSTER_ENDPOINT: DNS }).kubernetes?.access,
      ).toEqual({ kind: 'google', endpoint: DNS });
    });
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
