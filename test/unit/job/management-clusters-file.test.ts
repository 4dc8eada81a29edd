// MANAGEMENT_CLUSTERS_FILE: the management clusters as a mounted JSON file, for fleets whose list
// outgrows a Cloud Run variable (32 KiB). Same schema and rules as MANAGEMENT_CLUSTERS; errors
// name the file, then the entry and field; exactly one way of giving the list.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadJobConfig } from '../../../functions/pull-secret-job/config/config';
import { MANAGEMENT_CLUSTERS_FILE_MAX_BYTES } from '../../../functions/pull-secret-job/config/management-clusters-file';
import { loadDoctorConfig } from '../../../functions/pull-secret-job/doctor/doctor-config';
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

let dir: string;
let count = 0;
/** A new file each time: the job reads a path once per process. */
function file(content: unknown): string {
  const name = path.join(dir, `clusters-${++count}.json`);
  fs.writeFileSync(name, typeof content === 'string' ? content : JSON.stringify(content));
  return name;
}

function configError(env: Record<string, string>): string {
  try {
    loadJobConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

/**
 * A GKE cluster CA as GKE's masterAuth.clusterCaCertificate gives it: base64 of a PEM whose DER is
 * an RSA-2048 CA certificate's size (about 1,130 bytes, so a PEM of about 1.6 KB).
 */
function gkeCa(): string {
  const der = crypto.randomBytes(1130).toString('base64');
  const pem = `-----BEGIN CERTIFICATE-----\n${der.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  return Buffer.from(pem).toString('base64');
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'management-clusters-file-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('MANAGEMENT_CLUSTERS_FILE: the management clusters from a mounted file', () => {
  it('reads the same forms as MANAGEMENT_CLUSTERS, with the same result', () => {
    const list = {
      'mgmt-1': { endpoint: 'https://34.1.2.3', caCert: Buffer.from(PEM).toString('base64') },
      'mgmt-2': { endpoint: GATEWAY },
      'mgmt-3': { kubeconfig: '/k', context: 'c' },
    };
    const fromFile = loadJobConfig({
      ...base,
      MANAGEMENT_CLUSTERS_FILE: file(list),
      DEFAULT_MANAGEMENT_CLUSTER: 'mgmt-1',
    }).kubernetes;
    const inline = loadJobConfig({
      ...base,
      MANAGEMENT_CLUSTERS: JSON.stringify(list),
      DEFAULT_MANAGEMENT_CLUSTER: 'mgmt-1',
    }).kubernetes;
    expect(fromFile).toEqual(inline);
    expect(fromFile?.access).toEqual({ kind: 'google', endpoint: 'https://34.1.2.3', caPem: PEM });
    // The only entry is the default, as with the variable.
    const one = loadJobConfig({
      ...base,
      MANAGEMENT_CLUSTERS_FILE: file({ only: { endpoint: GATEWAY } }),
    });
    expect(one.kubernetes?.cluster).toBe('only');
  });

  it('the doctor reads it too', () => {
    const config = loadDoctorConfig({
      MANAGEMENT_CLUSTERS_FILE: file({ 'mgmt-2': { endpoint: GATEWAY } }),
    });
    expect(config.managementClusters).toEqual({ 'mgmt-2': { kind: 'google', endpoint: GATEWAY } });
    expect(config.defaultManagementCluster).toBe('mgmt-2');
  });

  it('names the file, the entry and the field of every problem, and never echoes a value', () => {
    const name = file({
      'mgmt-1': { endpoint: 'http://secret-host.example' },
      'mgmt-2': { endpoint: 'https://10.0.0.1', caCert: 'c2VjcmV0LWNh' },
      Bad_Name: { endpoint: GATEWAY },
    });
    const message = configError({ ...base, MANAGEMENT_CLUSTERS_FILE: name });
    expect(message).toContain(
      `MANAGEMENT_CLUSTERS_FILE: ${name}: entry "mgmt-1", field "endpoint"`,
    );
    expect(message).toContain(`MANAGEMENT_CLUSTERS_FILE: ${name}: entry "mgmt-2", field "caCert"`);
    expect(message).toContain(`${name}: entry "Bad_Name": the name must be a DNS label`);
    expect(message).toContain('fix the file');
    expect(message).not.toContain('secret-host');
    expect(message).not.toContain('c2VjcmV0LWNh');
  });

  it.each([
    [
      'not JSON',
      () => file('{mgmt-1:'),
      /MANAGEMENT_CLUSTERS_FILE: \/.*\.json: is not valid JSON; it must be an object/,
    ],
    ['an array', () => file([]), /\.json: must be a JSON object of management clusters/],
    ['empty', () => file({}), /\.json: must name at least one management cluster/],
    [
      'missing',
      () => path.join(dir, 'absent.json'),
      /MANAGEMENT_CLUSTERS_FILE: there is no file at \/.*absent\.json; mount the management clusters' JSON there .* or unset MANAGEMENT_CLUSTERS_FILE and give the list inline as MANAGEMENT_CLUSTERS/,
    ],
    ['a directory', () => dir, /MANAGEMENT_CLUSTERS_FILE: \/.* is not a regular file; mount/],
    [
      'a relative path',
      () => 'clusters.json',
      /MANAGEMENT_CLUSTERS_FILE: must be the absolute path of a JSON file/,
    ],
  ])('refuses a file that is %s, saying what to do', (_what, name, expected) => {
    expect(configError({ ...base, MANAGEMENT_CLUSTERS_FILE: name() })).toMatch(expected);
  });

  it('refuses a file far larger than any list of management clusters, without reading it', () => {
    const name = path.join(dir, 'huge.json');
    fs.writeFileSync(name, '');
    fs.truncateSync(name, MANAGEMENT_CLUSTERS_FILE_MAX_BYTES + 1); // sparse: nothing to read
    expect(configError({ ...base, MANAGEMENT_CLUSTERS_FILE: name })).toMatch(
      /huge\.json is 16777217 bytes, more than the 16777216 a list of management clusters can take/,
    );
  });

  it.each([
    [
      { MANAGEMENT_CLUSTERS: JSON.stringify({ 'mgmt-1': { kubeconfig: '/k' } }) },
      /MANAGEMENT_CLUSTERS_FILE: and MANAGEMENT_CLUSTERS are both set, and the job would not know which list to use: keep one/,
    ],
    [
      { KUBECONFIG: '/k' },
      /MANAGEMENT_CLUSTERS_FILE: and KUBECONFIG are both set; describe every cluster as an entry of MANAGEMENT_CLUSTERS_FILE and unset KUBECONFIG/,
    ],
    [
      { MANAGEMENT_CLUSTER_ENDPOINT: 'https://10.0.0.1', MANAGEMENT_CLUSTER_CA_CERT: PEM },
      /MANAGEMENT_CLUSTERS_FILE: and MANAGEMENT_CLUSTER_ENDPOINT, MANAGEMENT_CLUSTER_CA_CERT are both set/,
    ],
    [
      { DEFAULT_MANAGEMENT_CLUSTER: 'mgmt-3' },
      /DEFAULT_MANAGEMENT_CLUSTER: names "mgmt-3", which is not in MANAGEMENT_CLUSTERS_FILE \(mgmt-1, mgmt-2\)/,
    ],
    [
      {},
      /DEFAULT_MANAGEMENT_CLUSTER: is required when MANAGEMENT_CLUSTERS_FILE has several entries/,
    ],
  ])('takes exactly one way of giving the list, and says which: %j', (override, expected) => {
    const two = file({ 'mgmt-1': { kubeconfig: '/k1' }, 'mgmt-2': { kubeconfig: '/k2' } });
    expect(configError({ ...base, MANAGEMENT_CLUSTERS_FILE: two, ...override })).toMatch(expected);
  });

  it('says both are set even when the file is missing too', () => {
    const message = configError({
      ...base,
      MANAGEMENT_CLUSTERS_FILE: path.join(dir, 'gone.json'),
      MANAGEMENT_CLUSTERS: JSON.stringify({ 'mgmt-1': { kubeconfig: '/k' } }),
    });
    expect(message).toMatch(/there is no file at/);
    expect(message).toMatch(/MANAGEMENT_CLUSTERS_FILE: and MANAGEMENT_CLUSTERS are both set/);
  });

  it('reads the file once per process: a later change reaches the next execution (a new process)', () => {
    const name = file({ 'mgmt-1': { kubeconfig: '/k1' } });
    expect(loadJobConfig({ ...base, MANAGEMENT_CLUSTERS_FILE: name }).kubernetes?.cluster).toBe(
      'mgmt-1',
    );
    fs.writeFileSync(name, JSON.stringify({ 'mgmt-9': { kubeconfig: '/k9' } }));
    expect(loadJobConfig({ ...base, MANAGEMENT_CLUSTERS_FILE: name }).kubernetes?.cluster).toBe(
      'mgmt-1',
    );
  });

  it('is sized for 1,000 management clusters with their CAs: the list parses and validates', () => {
    const list: Record<string, unknown> = {};
    for (let i = 0; i < 1000; i++) {
      const name = `us-central${i % 10}-mgmt-${i}`;
      // The heaviest form: GKE IP endpoints, each with its own CA as GKE gives it.
      list[name] = { endpoint: `https://10.${(i >> 8) & 255}.${i & 255}.2`, caCert: gkeCa() };
    }
    const text = JSON.stringify(list);
    const name = file(text);
    const started = process.hrtime.bigint();
    const config = loadJobConfig({
      ...base,
      MANAGEMENT_CLUSTERS_FILE: name,
      MANAGEMENT_CLUSTER: 'us-central9-mgmt-999',
    });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    expect(Object.keys(config.kubernetes!.clusters)).toHaveLength(1000);
    expect(config.kubernetes?.access).toMatchObject({
      kind: 'google',
      endpoint: 'https://10.3.231.2',
    });
    expect((config.kubernetes?.access as { caPem?: string }).caPem).toMatch(
      /^-----BEGIN CERTIFICATE-----\n/,
    );
    // Reported in docs/management-clusters.md, "Sizing" (bytes per entry, parse time).
    process.stdout.write(
      `1,000 management clusters: ${text.length} bytes (${Math.round(text.length / 1000)} per entry), read, parsed and validated in ${ms.toFixed(1)} ms\n`,
    );
    expect(text.length).toBeGreaterThan(32 * 1024 * 50); // far beyond one Cloud Run variable
    expect(text.length).toBeLessThan(MANAGEMENT_CLUSTERS_FILE_MAX_BYTES / 4);
    expect(ms).toBeLessThan(2_000);
  });
});
