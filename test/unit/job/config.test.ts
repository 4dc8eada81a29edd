import { ConfigError } from '../../../shared/errors';
import { loadJobConfig } from '../../../functions/pull-secret-job/config/config';

const base = {
  CLUSTER_ID: 'cls-123',
  GCP_PROJECT_ID: 'customer-prod-12345',
  PULL_SECRET_DATA: '{"auths":{}}',
};

function configError(env: Record<string, string>): string {
  try {
    loadJobConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadJobConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadJobConfig(base);
    expect(config).toMatchObject({
      clusterId: 'cls-123',
      projectId: 'customer-prod-12345',
      secretId: 'hyperfleet-cls-123-pull-secret',
      operation: 'apply',
      replication: { kind: 'automatic' },
      onDelete: 'delete',
      logLevel: 'info',
      logFormat: 'json',
      apiTimeoutMs: 30_000,
      retry: { attempts: 4, baseDelayMs: 1000, maxDelayMs: 30_000 },
    });
    expect(config.kubernetes).toBeUndefined();
    // One version by default: each kept version is billed, and nothing reads an older one.
    expect(config.retention).toBe(1);
  });

  it("TOMBSTONE_TTL: 25 h by default, in seconds, within Secret Manager's 60 s to 100 years", () => {
    // Cloud Run's longest task (24 h) and an hour for calls in flight (the tombstone: delete-pull-secret.ts).
    expect(loadJobConfig(base).tombstoneTtlSeconds).toBe(25 * 3600);
    expect(loadJobConfig({ ...base, TOMBSTONE_TTL: '4200s' }).tombstoneTtlSeconds).toBe(4200);
    expect(loadJobConfig({ ...base, TOMBSTONE_TTL: '60s' }).tombstoneTtlSeconds).toBe(60);
    expect(configError({ ...base, TOMBSTONE_TTL: '59s' })).toMatch(
      /TOMBSTONE_TTL: must be between 60s and 100 years/,
    );
    expect(configError({ ...base, TOMBSTONE_TTL: `${101 * 365 * 24}h` })).toMatch(/TOMBSTONE_TTL/);
  });

  it('SECRET_VERSION_RETENTION=0 keeps every version', () => {
    expect(loadJobConfig({ ...base, SECRET_VERSION_RETENTION: '0' }).retention).toBeUndefined();
  });

  it('parses durations, replication, CMEK, retention and the Kubernetes target', () => {
    const config = loadJobConfig({
      ...base,
      GCP_API_TIMEOUT: '1500ms',
      REPLICATION_POLICY: 'user-managed:us-east1,us-central1',
      KMS_KEY_NAME: 'projects/p/locations/{location}/keyRings/r/cryptoKeys/k',
      SECRET_VERSION_RETENTION: '3',
      MANAGEMENT_NAMESPACE: 'clusters-cls-123',
      KUBECONFIG: '/tmp/kubeconfig',
      GENERATION: '7',
    });
    expect(config.apiTimeoutMs).toBe(1500);
    expect(config.replication).toEqual({
      kind: 'user-managed',
      locations: ['us-east1', 'us-central1'],
      kmsKeyName: 'projects/p/locations/{location}/keyRings/r/cryptoKeys/k',
    });
    expect(config.retention).toBe(3);
    expect(config.generation).toBe(7);
    expect(config.kubernetes).toMatchObject({
      namespace: 'clusters-cls-123',
      secretName: 'cls-123-pull-secret',
    });
  });

  it("takes the operator's namespace layout; a launch decided under the layout a migration leaves writes to the new one", () => {
    const target = (env: Record<string, string>) =>
      loadJobConfig({ ...base, KUBECONFIG: '/tmp/kc', ...env }).kubernetes;
    expect(target({ MANAGEMENT_NAMESPACE: 'clusters-cls-123' })).toMatchObject({
      layout: { template: 'clusters-{id}' },
      namespace: 'clusters-cls-123',
    });
    const migrating = {
      MANAGEMENT_NAMESPACE_TEMPLATE: 'clusters',
      PREVIOUS_MANAGEMENT_NAMESPACE_TEMPLATE: 'clusters-{id}',
      NAMESPACE_MIGRATION_PHASE: 'keep-previous',
    };
    // Queued before the apply, run after it: the job's layout decides.
    expect(target({ ...migrating, MANAGEMENT_NAMESPACE: 'clusters-cls-123' })).toMatchObject({
      layout: {
        template: 'clusters',
        migration: { previous: 'clusters-{id}', phase: 'keep-previous' },
      },
      namespace: 'clusters',
    });
    // Anything else is left as decided, for requireOwnPlace to refuse.
    expect(target({ ...migrating, MANAGEMENT_NAMESPACE: 'kube-system' })?.namespace).toBe(
      'kube-system',
    );
  });

  it('reaches the management cluster by kubeconfig, or by endpoint with a PEM or base64 CA', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    expect(
      loadJobConfig({ ...base, MANAGEMENT_NAMESPACE: 'ns', KUBECONFIG: '/tmp/kc' }).kubernetes
        ?.access,
    ).toEqual({ kind: 'kubeconfig', path: '/tmp/kc' });
    const gke = loadJobConfig({
      ...base,
      MANAGEMENT_NAMESPACE: 'ns',
      MANAGEMENT_CLUSTER_ENDPOINT: 'https://10.0.0.1',
      MANAGEMENT_CLUSTER_CA_CERT: Buffer.from(pem).toString('base64'),
    });
    expect(gke.kubernetes?.access).toEqual({
      kind: 'google',
      endpoint: 'https://10.0.0.1',
      caPem: pem,
    });
    const gateway = loadJobConfig({
      ...base,
      MANAGEMENT_NAMESPACE: 'ns',
      MANAGEMENT_CLUSTER_ENDPOINT:
        'https://connectgateway.googleapis.com/v1/projects/1/locations/global/gkeMemberships/m',
    });
    expect(gateway.kubernetes?.access).toEqual({
      kind: 'google',
      endpoint:
        'https://connectgateway.googleapis.com/v1/projects/1/locations/global/gkeMemberships/m',
    });
    expect(gke.kubernetes).toMatchObject({
      namespaceWaitMs: 60_000,
      timeoutMs: 15_000,
      secretName: 'cls-123-pull-secret',
    });
  });

  it.each([
    [
      { MANAGEMENT_NAMESPACE: 'ns' },
      /MANAGEMENT_CLUSTERS: \(or MANAGEMENT_CLUSTERS_FILE, or the single-cluster KUBECONFIG or MANAGEMENT_CLUSTER_ENDPOINT\) is required/,
    ],
    [
      { MANAGEMENT_NAMESPACE: 'ns', KUBECONFIG: '/k', MANAGEMENT_CLUSTER_ENDPOINT: 'https://x' },
      /KUBECONFIG: and MANAGEMENT_CLUSTER_ENDPOINT are both set/,
    ],
    [
      { MANAGEMENT_CLUSTER_ENDPOINT: 'http://10.0.0.1' },
      /MANAGEMENT_CLUSTER_ENDPOINT: must be an https/,
    ],
    [
      { MANAGEMENT_CLUSTER_CA_CERT: 'bm90IGEgY2VydA==' },
      /MANAGEMENT_CLUSTER_CA_CERT: must be a PEM certificate/,
    ],
    [
      { MANAGEMENT_NAMESPACE_TEMPLATE: 'hc-{name}' },
      /MANAGEMENT_NAMESPACE_TEMPLATE: has the placeholder \{name\}/,
    ],
    [
      { NAMESPACE_MIGRATION_PHASE: 'remove-previous' },
      /PREVIOUS_MANAGEMENT_NAMESPACE_TEMPLATE: is required with NAMESPACE_MIGRATION_PHASE/,
    ],
  ])('rejects Kubernetes settings %j', (override, expected) => {
    expect(configError({ ...base, ...override })).toMatch(expected);
  });

  it('SKIP_KUBERNETES=true runs the Secret Manager phase alone', () => {
    expect(
      loadJobConfig({ ...base, MANAGEMENT_NAMESPACE: 'ns', SKIP_KUBERNETES: 'true' }).kubernetes,
    ).toBeUndefined();
  });

  it('accepts CMEK keys where Secret Manager wants them, and label-safe cluster names', () => {
    const key = (location: string) => `projects/p/locations/${location}/keyRings/r/cryptoKeys/k`;
    expect(loadJobConfig({ ...base, KMS_KEY_NAME: key('global') }).replication).toEqual({
      kind: 'automatic',
      kmsKeyName: key('global'),
    });
    const single = { REPLICATION_POLICY: 'user-managed:us-east1', KMS_KEY_NAME: key('us-east1') };
    expect(loadJobConfig({ ...base, ...single }).replication.kmsKeyName).toBe(key('us-east1'));
    expect(loadJobConfig({ ...base, CLUSTER_NAME: 'prod_cluster-01' }).clusterName).toBe(
      'prod_cluster-01',
    );
  });

  it('treats empty variables as unset', () => {
    expect(loadJobConfig({ ...base, SECRET_NAME: '  ', LOG_LEVEL: '' }).secretId).toBe(
      'hyperfleet-cls-123-pull-secret',
    );
  });

  it.each([
    [{ CLUSTER_ID: '' }, /CLUSTER_ID: /],
    [{ CLUSTER_ID: 'Cls_123' }, /CLUSTER_ID: must be 1-63 lowercase/],
    [{ CLUSTER_ID: 'x'.repeat(64) }, /CLUSTER_ID/],
    [{ GCP_PROJECT_ID: 'Bad Project' }, /GCP_PROJECT_ID: must be a GCP project id/],
    [{ GCP_PROJECT_ID: 'short' }, /GCP_PROJECT_ID/],
    [
      { CLUSTER_NAME: 'Has Spaces' },
      /CLUSTER_NAME: "Has Spaces" cannot be the value of the label cluster-name/,
    ],
    [
      { CLUSTER_NAME: 'prod.example' },
      /CLUSTER_NAME: "prod.example" cannot be the value of the label cluster-name.*no "\."/,
    ],
    [{ CLUSTER_NAME: 'Prod' }, /CLUSTER_NAME: "Prod" cannot be.*no uppercase/],
    [{ CLUSTER_NAME: 'x'.repeat(64) }, /CLUSTER_NAME: .*at most 63/],
    [
      { KMS_KEY_NAME: 'projects/p/locations/us-east1/keyRings/r/cryptoKeys/k' },
      /KMS_KEY_NAME: is in location "us-east1", but with REPLICATION_POLICY=automatic Secret Manager only accepts a key in "global"/,
    ],
    [
      { KMS_KEY_NAME: 'projects/p/locations/{location}/keyRings/r/cryptoKeys/k' },
      /KMS_KEY_NAME: is in location "\{location\}", but with REPLICATION_POLICY=automatic/,
    ],
    [
      {
        REPLICATION_POLICY: 'user-managed:us-east1,europe-west1',
        KMS_KEY_NAME: 'projects/p/locations/us-east1/keyRings/r/cryptoKeys/k',
      },
      /KMS_KEY_NAME: is in location "us-east1", but each user-managed replica needs a key in its own location \(europe-west1 differ\). Write \{location\}/,
    ],
    [{ SECRET_NAME: 'a/b' }, /SECRET_NAME: must be a Secret Manager secret id/],
    [
      { REPLICATION_POLICY: 'everywhere' },
      /REPLICATION_POLICY: must be "automatic" or "user-managed/,
    ],
    [{ GCP_API_TIMEOUT: 'soon' }, /GCP_API_TIMEOUT: must be a positive duration/],
    [
      { SECRET_VERSION_RETENTION: '-1' },
      /SECRET_VERSION_RETENTION: must be a whole number \(0 keeps every version\)/,
    ],
    [{ LOG_FORMAT: 'xml' }, /LOG_FORMAT: must be json or text/],
    [{ OPERATION: 'upsert' }, /OPERATION: must be apply or delete/],
    [
      { MANAGEMENT_NAMESPACE: 'Not_A_Label' },
      /MANAGEMENT_NAMESPACE: must be a Kubernetes namespace name/,
    ],
    [
      { SECRET_MANAGER_EMULATOR_HOST: 'localhost' },
      /SECRET_MANAGER_EMULATOR_HOST: must be host:port/,
    ],
    // No pull secret is no run: never a fake one (docs/architecture.md, departures from the seeds).
    [{ PULL_SECRET_DATA: '' }, /PULL_SECRET_SOURCE: or PULL_SECRET_DATA is required/],
    [
      { PULL_SECRET_SOURCE: 'env', PULL_SECRET_DATA: '' },
      /PULL_SECRET_DATA: is required when PULL_SECRET_SOURCE=env/,
    ],
  ])('rejects %j with a message naming the variable', (override, expected) => {
    expect(configError({ ...base, ...override })).toMatch(expected);
  });

  it('reports every bad variable at once and never echoes values', () => {
    const message = configError({
      ...base,
      CLUSTER_ID: 'BAD!',
      GCP_PROJECT_ID: 'NOPE!',
      PULL_SECRET_DATA: 'top-secret-value',
    });
    expect(message).toMatch(/CLUSTER_ID/);
    expect(message).toMatch(/GCP_PROJECT_ID/);
    expect(message).not.toContain('BAD!');
    expect(message).not.toContain('top-secret-value');
  });
});

describe('loadJobConfig: tracing', () => {
  const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

  it("continues the adapter's launch span from TRACEPARENT (+ TRACESTATE)", () => {
    const config = loadJobConfig({ ...base, TRACEPARENT, TRACESTATE: 'vendor=a1' });
    expect(config.parentTrace).toEqual({ traceparent: TRACEPARENT, tracestate: 'vendor=a1' });
    expect(config.ignoredTraceparent).toBeUndefined();
  });

  it('flags an invalid TRACEPARENT instead of failing the execution (main.ts warns; a new trace starts)', () => {
    const config = loadJobConfig({
      ...base,
      TRACEPARENT: '00-nothex-b7ad6b7169203331-01',
      TRACESTATE: 'vendor=a1',
    });
    expect(config.parentTrace).toBeUndefined();
    expect(config.ignoredTraceparent).toBe(true);
  });

  it('starts a new trace without TRACEPARENT (a run by hand), and exports nothing by default', () => {
    const config = loadJobConfig(base);
    expect(config.parentTrace).toBeUndefined();
    expect(config.ignoredTraceparent).toBeUndefined();
    expect(config.tracing).toMatchObject({
      exporting: false,
      serviceName: 'pullsecret-job',
      sampler: 'parentbased_always_on',
    });
  });

  it('embeds the OTEL_* settings and names the platform project for logs and spans', () => {
    const config = loadJobConfig({
      ...base,
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      GOOGLE_CLOUD_PROJECT: 'platform-project',
    });
    expect(config.tracing).toMatchObject({
      exporting: true,
      tracesEndpoint: 'http://127.0.0.1:4318/v1/traces',
    });
    expect(config.platformProjectId).toBe('platform-project');
    expect(configError({ ...base, OTEL_TRACES_EXPORTER: 'zipkin' })).toContain(
      'OTEL_TRACES_EXPORTER',
    );
  });
});
