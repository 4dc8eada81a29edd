// Issue 26, item 4: on Cloud Run the job refuses, before any call, every variable that would point
// it elsewhere (its calls, its token, its trust), naming it; under the Cloud Run emulator's mark
// (argv[0], which no RunJob override can set) the local stack's emulator hosts stay allowed.
import {
  onCloudRun,
  redirectingVariables,
  refuseRedirects,
} from '../../../functions/pull-secret-job/config/redirect-guard';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../../../shared/errors';
import { CLOUD_RUN_EMULATOR_ARGV0 } from '../../../shared/gcp/cloud-run-emulator-mark';

const NODE = '/nodejs/bin/node'; // argv[0] on Cloud Run: the image's ENTRYPOINT
const CLOUD_RUN = { CLOUD_RUN_JOB: 'pullsecret-job', CLOUD_RUN_EXECUTION: 'pullsecret-job-x7k2p' };
/** What the job definition Terraform writes carries: none of it is refused. */
const DEFINITION = {
  ...CLOUD_RUN,
  MANAGEMENT_CLUSTERS: JSON.stringify({
    'mgmt-1': { endpoint: 'https://gke-0123.us-central1.gke.goog' },
    'mgmt-2': { endpoint: 'https://34.1.2.3', caCert: 'LS0tLS1CRUdJTg==' },
  }),
  HYPERFLEET_API_BASE_URL: 'https://hyperfleet-api.example.com',
  HYPERFLEET_API_AUTH_TOKEN_PATH: '/var/secrets/hyperfleet/token',
  RESULTS_TOPIC: 'projects/platform/topics/pullsecret-job-results',
  OTEL_TRACES_EXPORTER: 'otlp',
  OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
  GOOGLE_CLOUD_PROJECT: 'platform',
  NODE_OPTIONS: '--max-semi-space-size=1', // the image's own (Dockerfile)
  CLUSTER_ID: 'cls-1',
  GCP_PROJECT_ID: 'customer-project',
};

const refusal = (env: Record<string, string>, argv0 = NODE): ConfigError | undefined => {
  try {
    refuseRedirects(env, argv0);
    return undefined;
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
};

describe('refuseRedirects: on Cloud Run', () => {
  it('accepts what the job definition and the adapter set', () => {
    expect(refusal(DEFINITION)).toBeUndefined();
  });

  it.each([
    ['SECRET_MANAGER_EMULATOR_HOST', '127.0.0.1:8085'],
    ['PUBSUB_EMULATOR_HOST', '127.0.0.1:8086'],
    ['STORAGE_EMULATOR_HOST', 'http://127.0.0.1:9023'],
    // What only `pull-secret doctor` reads, the local stack's REST emulators.
    ['EVENTARC_EMULATOR_HOST', '127.0.0.1:8087'],
    ['RESOURCE_MANAGER_EMULATOR_HOST', '127.0.0.1:8088'],
    ['KUBECONFIG', '/tmp/kubeconfig'],
    ['GCE_METADATA_HOST', 'attacker.example:80'],
    ['GCE_METADATA_IP', '203.0.113.7'],
    ['GOOGLE_APPLICATION_CREDENTIALS', '/tmp/creds.json'],
    ['google_application_credentials', '/tmp/creds.json'],
    ['CLOUDSDK_CONFIG', '/tmp/gcloud'],
    ['GOOGLE_CLOUD_UNIVERSE_DOMAIN', 'attacker.example'],
    ['NODE_EXTRA_CA_CERTS', '/tmp/ca.pem'],
    ['NODE_TLS_REJECT_UNAUTHORIZED', '0'],
    ['GRPC_DEFAULT_SSL_ROOTS_FILE_PATH', '/tmp/roots.pem'],
    ['HTTPS_PROXY', 'http://proxy.example:3128'],
    ['https_proxy', 'http://proxy.example:3128'],
    ['HTTP_PROXY', 'http://proxy.example:3128'],
    ['grpc_proxy', 'http://proxy.example:3128'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'https://collector.example'],
    ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'https://collector.example/v1/traces'],
  ])('refuses %s, naming it, never its value', (name, value) => {
    const error = refusal({ ...DEFINITION, [name]: value });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error?.reason).toBe('InvalidConfiguration');
    expect(error?.problems.map((p) => p.variable)).toEqual([name]);
    expect(error?.message).toContain(`Refused on Cloud Run (CLOUD_RUN_JOB is set): ${name} would`);
    expect(error?.message).not.toContain(value);
  });

  it('refuses a variable that is present but empty (an override cannot unset, only set)', () => {
    expect(refusal({ ...DEFINITION, KUBECONFIG: '' })?.problems).toHaveLength(1);
  });

  it('refuses a MANAGEMENT_CLUSTERS entry in kubeconfig form, naming the entry; endpoint entries pass', () => {
    const clusters = JSON.stringify({
      'mgmt-1': { endpoint: 'https://gke-0123.us-central1.gke.goog' },
      evil: { kubeconfig: '/tmp/kubeconfig', context: 'x' },
    });
    const error = refusal({ ...DEFINITION, MANAGEMENT_CLUSTERS: clusters });
    expect(error?.problems.map((p) => p.variable)).toEqual(['MANAGEMENT_CLUSTERS entry "evil"']);
  });

  it('refuses a MANAGEMENT_CLUSTERS_FILE entry in kubeconfig form the same way, naming the file variable and the entry', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redirect-guard-'));
    try {
      const file = path.join(dir, 'clusters.json');
      fs.writeFileSync(
        file,
        JSON.stringify({
          'mgmt-1': { endpoint: 'https://gke-0123.us-central1.gke.goog' },
          evil: { kubeconfig: '/tmp/kubeconfig' },
        }),
      );
      const { MANAGEMENT_CLUSTERS: _inline, ...definition } = DEFINITION;
      const error = refusal({ ...definition, MANAGEMENT_CLUSTERS_FILE: file });
      expect(error?.problems.map((p) => p.variable)).toEqual([
        'MANAGEMENT_CLUSTERS_FILE entry "evil"',
      ]);
      // Endpoint entries only (what Terraform writes): nothing refused.
      const clean = path.join(dir, 'clean.json');
      fs.writeFileSync(clean, JSON.stringify({ 'mgmt-1': { endpoint: 'https://34.1.2.3' } }));
      expect(refusal({ ...definition, MANAGEMENT_CLUSTERS_FILE: clean })).toBeUndefined();
      // A file that cannot be read is the configuration's to report.
      expect(
        redirectingVariables({ MANAGEMENT_CLUSTERS_FILE: path.join(dir, 'absent.json') }),
      ).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names every redirecting variable at once', () => {
    const error = refusal({
      ...DEFINITION,
      SECRET_MANAGER_EMULATOR_HOST: '127.0.0.1:1',
      KUBECONFIG: '/k',
      GCE_METADATA_HOST: 'm:80',
    });
    expect(error?.problems.map((p) => p.variable).sort()).toEqual([
      'GCE_METADATA_HOST',
      'KUBECONFIG',
      'SECRET_MANAGER_EMULATOR_HOST',
    ]);
  });

  it('leaves an invalid MANAGEMENT_CLUSTERS to the configuration to report', () => {
    expect(redirectingVariables({ MANAGEMENT_CLUSTERS: '{not json' })).toEqual([]);
    expect(redirectingVariables({ MANAGEMENT_CLUSTERS: '[1]' })).toEqual([]);
  });
});

describe('refuseRedirects: where the job tells the emulator from Cloud Run', () => {
  const local = { ...DEFINITION, SECRET_MANAGER_EMULATOR_HOST: '127.0.0.1:1', KUBECONFIG: '/k' };

  it("allows the local stack's variables under the Cloud Run emulator's mark", () => {
    expect(onCloudRun(local, CLOUD_RUN_EMULATOR_ARGV0)).toBe(false);
    expect(refusal(local, CLOUD_RUN_EMULATOR_ARGV0)).toBeUndefined();
  });

  it('allows them without CLOUD_RUN_JOB (the CLI run by hand)', () => {
    const { CLOUD_RUN_JOB: _job, ...direct } = local;
    expect(refusal(direct)).toBeUndefined();
  });

  it('no variable stands for the mark: whatever an override adds, the process is still on Cloud Run', () => {
    const forged = {
      ...local,
      CLOUD_RUN_EMULATOR: '1',
      CLOUD_RUN_EMULATOR_ARGV0,
      ARGV0: CLOUD_RUN_EMULATOR_ARGV0,
      K_REVISION: CLOUD_RUN_EMULATOR_ARGV0,
      CLOUD_RUN_EMULATOR_HOST: '127.0.0.1:1',
    };
    expect(onCloudRun(forged, NODE)).toBe(true);
    expect(
      refusal(forged)
        ?.problems.map((p) => p.variable)
        .sort(),
    ).toEqual(['CLOUD_RUN_EMULATOR_HOST', 'KUBECONFIG', 'SECRET_MANAGER_EMULATOR_HOST']);
  });
});
