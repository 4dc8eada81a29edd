// Issue 26, item 7: every HyperFleet call carries the bearer token (or a Google ID token), and the
// job reads the cluster's pull secret from the API, so a plain-http base URL would send both in
// cleartext. Only a loopback host may be reached over http: the local stack's emulator listens on
// 127.0.0.1, and a loopback connection never leaves the machine.
import { loadAdapterConfig } from '../../../functions/adapter/config/config';
import { loadReporterConfig } from '../../../functions/reporter/config/config';
import { loadJobConfig } from '../../../functions/pull-secret-job/config/config';

const PULL_SECRET_JOB = 'projects/p/locations/us-central1/jobs/pullsecret-job';
const LAUNCH = {
  LAUNCH_QUEUE: 'projects/p/locations/us-central1/queues/pullsecret-launches',
  LAUNCHER_SERVICE_ACCOUNT: 'pullsecret-launcher@p.iam.gserviceaccount.com',
};
const JOB_BASE = {
  CLUSTER_ID: 'cls-1',
  GCP_PROJECT_ID: 'customer-project',
  OPERATION: 'apply',
  PULL_SECRET_SOURCE: 'cluster-spec',
};

/** Each component's loader, given HYPERFLEET_API_BASE_URL; returns the base URL it would call. */
const components: [string, (url: string) => string | undefined][] = [
  [
    'adapter',
    (url) =>
      loadAdapterConfig({ HYPERFLEET_API_BASE_URL: url, PULL_SECRET_JOB, ...LAUNCH }).hyperfleet
        .baseUrl,
  ],
  [
    'reporter',
    (url) =>
      loadReporterConfig({ HYPERFLEET_API_BASE_URL: url, PULL_SECRET_JOB }).hyperfleet.baseUrl,
  ],
  [
    'job',
    (url) => loadJobConfig({ ...JOB_BASE, HYPERFLEET_API_BASE_URL: url }).hyperfleet?.baseUrl,
  ],
];

describe.each(components)('the %s calls HyperFleet over https only', (_name, load) => {
  it.each([
    'http://hyperfleet-api:8000',
    'http://hyperfleet-api.internal.example.com',
    'http://10.0.0.7:8000',
    // Looks local, is not: a name that merely starts like a loopback address.
    'http://127.0.0.1.example.com',
    'http://localhost.example.com:8000',
  ])('refuses %s, naming the variable and what to do', (url) => {
    expect(() => load(url)).toThrow(
      /HYPERFLEET_API_BASE_URL: must be an https:\/\/ URL \(the API token and pull secrets travel on it\); http:\/\/ is accepted only for a loopback host \(127\.0\.0\.1, localhost, \[::1\]\), as in the local stack/,
    );
  });

  it.each([
    ['https://hyperfleet-api.internal.example.com', 'https://hyperfleet-api.internal.example.com'],
    ['https://10.0.0.7:8443/', 'https://10.0.0.7:8443'],
    ['http://127.0.0.1:8000', 'http://127.0.0.1:8000'],
    ['http://localhost:8000/', 'http://localhost:8000'],
    ['http://[::1]:8000', 'http://[::1]:8000'],
  ])('accepts %s', (url, baseUrl) => {
    expect(load(url)).toBe(baseUrl);
  });
});
