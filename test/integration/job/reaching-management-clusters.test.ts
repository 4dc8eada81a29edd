// The job's real identity path, as the CLI process runs on Cloud Run: google-auth-library gets the
// job's token from the metadata server (GCE_METADATA_HOST, detection on, CLOUD_RUN_JOB set), and the
// job reaches a management cluster in each of the three ways production offers: the IP endpoint
// with the cluster CA, the DNS endpoint (a publicly trusted certificate: no CA configured, the local
// public CA trusted through NODE_EXTRA_CA_CERTS) and Connect Gateway (a path prefix, a public CA,
// IAM on the membership). Each cluster's rights are Terraform's template, applied with kubectl.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createCertificateAuthority,
  issueServingCertificate,
} from '../../../emulators/common/certificates';
import {
  startConnectGatewayEmulator,
  type ConnectGatewayEmulator,
} from '../../../emulators/connect-gateway/server';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import {
  startMetadataServer,
  type MetadataServerEmulator,
} from '../../../emulators/metadata-server/server';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { applyManifest, renderClusterRbac } from '../../../emulators/pullsecret/stack/cluster-rbac';
import { EXIT_CODES } from '../../../shared/job-result';
import { runJob, samplePullSecret } from '../../helpers/job';
import { ROOT } from '../../helpers/run-process';

const JOB = 'pullsecret-job@demo-platform.iam.gserviceaccount.com';
const PROJECT = 'demo-project';
const NAMESPACE = 'clusters-cls-1';

describe('the job reaches management clusters with its Google identity (IP, DNS endpoint, Connect Gateway)', () => {
  let metadata: MetadataServerEmulator;
  let sm: SecretManagerEmulator;
  let ipCluster: KubeApiServerEmulator;
  let dnsCluster: KubeApiServerEmulator;
  let gatewayCluster: KubeApiServerEmulator;
  let gateway: ConnectGatewayEmulator;
  let dir: string;
  let publicCaFile: string;
  let home: string;
  let execution = 0;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reaching-clusters-'));
    home = fs.mkdtempSync(path.join(dir, 'home-'));
    const publicCa = createCertificateAuthority(path.join(dir, 'public-ca'), 'test public root');
    publicCaFile = publicCa.certFile;
    metadata = await startMetadataServer({ serviceAccount: JOB });
    sm = await startSecretManagerEmulator();
    const cluster = (name: string, extra: Parameters<typeof startKubeApiServerEmulator>[0] = {}) =>
      startKubeApiServerEmulator({
        namespaces: [NAMESPACE],
        googleTokenInfoUrl: metadata.tokenInfoUrl,
        stateDir: path.join(dir, name),
        ...extra,
      });
    ipCluster = await cluster('ip');
    dnsCluster = await cluster('dns', {
      certificate: issueServingCertificate(publicCa, path.join(dir, 'dns-cert'), ['localhost']),
    });
    gatewayCluster = await cluster('gateway-backend');
    for (const [name, kube] of [
      ['ip', ipCluster],
      ['dns', dnsCluster],
      ['gateway', gatewayCluster],
    ] as const)
      await applyManifest(
        kube.kubeconfigPath,
        renderClusterRbac(ROOT, {
          cluster: name,
          jobIdentity: JOB,
          namespaces: null,
          credentialsCommand: 'true',
        }),
      ).catch(async (error: unknown) => {
        // The DNS cluster's admin kubeconfig names 127.0.0.1, which its certificate does not:
        // apply through the name the certificate carries.
        if (name !== 'dns') throw error;
        const kubeconfig = path.join(dir, 'dns-admin.kubeconfig');
        fs.writeFileSync(
          kubeconfig,
          fs
            .readFileSync(kube.kubeconfigPath, 'utf8')
            .replace('https://127.0.0.1:', 'https://localhost:'),
        );
        await applyManifest(
          kubeconfig,
          renderClusterRbac(ROOT, {
            cluster: name,
            jobIdentity: JOB,
            namespaces: null,
            credentialsCommand: 'true',
          }),
        );
      });
    gateway = await startConnectGatewayEmulator({
      config: {
        memberships: [
          {
            projectNumber: '123456789012',
            location: 'global',
            name: 'mgmt-gw',
            backend: gatewayCluster.endpoint,
            backendCaPem: gatewayCluster.caPem,
          },
        ],
        grants: { [JOB]: 'roles/gkehub.gatewayEditor' },
        tokenInfoUrl: metadata.tokenInfoUrl,
      },
      certificate: issueServingCertificate(publicCa, path.join(dir, 'gateway-cert'), [
        'localhost',
        '127.0.0.1',
      ]),
    });
  });
  afterAll(async () => {
    await Promise.all(
      [gateway, gatewayCluster, dnsCluster, ipCluster, sm, metadata].map((e) => e?.stop()),
    );
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const dnsEndpoint = () => `https://localhost:${new URL(dnsCluster.endpoint).port}`;
  /** One execution on Cloud Run's terms (as the emulator runs a task): metadata detection on, no kubeconfig, no ADC file. */
  const run = (
    clusters: Record<string, { endpoint: string; caCert?: string }>,
    extra: Record<string, string | undefined> = {},
  ) => {
    execution++;
    return runJob(
      {
        METADATA_SERVER_DETECTION: undefined,
        GCE_METADATA_HOST: metadata.host,
        CLOUD_RUN_JOB: 'pullsecret-job',
        HOME: home,
        NODE_EXTRA_CA_CERTS: publicCaFile,
        SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
        GCP_PROJECT_ID: PROJECT,
        CLUSTER_ID: 'cls-1',
        GENERATION: String(execution),
        LAUNCH_ATTEMPT: '1',
        CLOUD_RUN_EXECUTION: `pullsecret-job-reach-${execution}`,
        MANAGEMENT_CLUSTERS: JSON.stringify(clusters),
        MANAGEMENT_NAMESPACE: NAMESPACE,
        PULL_SECRET_DATA: samplePullSecret(),
        ...extra,
      },
      [],
      { asEmulatedTask: true },
    );
  };
  const jobWrites = (kube: KubeApiServerEmulator) =>
    kube.requests
      .list()
      .filter((r) => r.target.startsWith(`/api/v1/namespaces/${NAMESPACE}/secrets`));

  it('IP endpoint with the cluster CA: the cluster sees the service account email from a token with both scopes', async () => {
    const result = await run({
      'mgmt-ip': { endpoint: ipCluster.endpoint, caCert: ipCluster.caPem },
    });
    expect({ outcome: result.result.outcome, reason: result.result.reason }).toEqual({
      outcome: 'succeeded',
      reason: 'PullSecretProvisioned',
    });
    expect(result.code).toBe(EXIT_CODES.success);
    expect(result.result.kubernetes).toMatchObject({
      management_cluster: 'mgmt-ip',
      outcome: 'created',
    });
    const writes = jobWrites(ipCluster);
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.every((r) => r.identity === JOB)).toBe(true);
    const token = (await (await fetch(`${metadata.endpoint}/_emulator/tokens`)).json()) as {
      tokens: { email: string; scopes: string[] }[];
    };
    expect(token.tokens.map((t) => t.scopes)).toContainEqual([
      'https://www.googleapis.com/auth/cloud-platform',
      'https://www.googleapis.com/auth/userinfo.email',
    ]);
  });

  it('DNS endpoint: no CA configured, the public certificate trusted through the system roots', async () => {
    const result = await run({ 'mgmt-dns': { endpoint: dnsEndpoint() } });
    expect(result.code).toBe(EXIT_CODES.success);
    expect(result.result.kubernetes).toMatchObject({
      management_cluster: 'mgmt-dns',
      outcome: 'created',
    });
    expect(jobWrites(dnsCluster).every((r) => r.identity === JOB)).toBe(true);
  });

  it('DNS endpoint given a cluster CA: Node trusts only that CA and the TLS handshake fails (why Terraform refuses ca_certificate for .gke.goog)', async () => {
    const before = jobWrites(dnsCluster).length;
    const result = await run({ 'mgmt-dns': { endpoint: dnsEndpoint(), caCert: ipCluster.caPem } });
    expect(result.code).not.toBe(EXIT_CODES.success);
    expect(`${result.result.reason} ${result.result.message}`).toMatch(
      /certificate|TLS|issuer|verify/i,
    );
    expect(jobWrites(dnsCluster).length).toBe(before);
  });

  it('Connect Gateway: the API under /v1/projects/NUMBER/locations/LOCATION/gkeMemberships/NAME, public CA, IAM on the membership', async () => {
    const result = await run({ 'mgmt-gw': { endpoint: gateway.membershipUrl('mgmt-gw') } });
    expect(result.code).toBe(EXIT_CODES.success);
    expect(result.result.kubernetes).toMatchObject({
      management_cluster: 'mgmt-gw',
      outcome: 'created',
    });
    expect(
      gateway.requests
        .list()
        .some((r) => r.target.startsWith(`/api/v1/namespaces/${NAMESPACE}/secrets`)),
    ).toBe(true);
    expect(jobWrites(gatewayCluster).every((r) => r.identity === JOB)).toBe(true);
  });

  it('the list as a mounted file (MANAGEMENT_CLUSTERS_FILE, as Terraform mounts it): the three ways in one file, the execution reaches the one it names (last: it writes to a cluster the tests above expect empty)', async () => {
    const file = path.join(dir, 'management-clusters.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        'mgmt-ip': { endpoint: ipCluster.endpoint, caCert: ipCluster.caPem },
        'mgmt-dns': { endpoint: dnsEndpoint() },
        'mgmt-gw': { endpoint: gateway.membershipUrl('mgmt-gw') },
      }),
    );
    const before = jobWrites(dnsCluster).length;
    execution++;
    const result = await runJob(
      {
        METADATA_SERVER_DETECTION: undefined,
        GCE_METADATA_HOST: metadata.host,
        CLOUD_RUN_JOB: 'pullsecret-job',
        HOME: home,
        NODE_EXTRA_CA_CERTS: publicCaFile,
        SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
        GCP_PROJECT_ID: PROJECT,
        CLUSTER_ID: 'cls-1',
        GENERATION: String(execution),
        LAUNCH_ATTEMPT: '1',
        CLOUD_RUN_EXECUTION: `pullsecret-job-reach-${execution}`,
        MANAGEMENT_CLUSTERS_FILE: file,
        MANAGEMENT_CLUSTER: 'mgmt-dns',
        MANAGEMENT_NAMESPACE: NAMESPACE,
        PULL_SECRET_DATA: samplePullSecret(),
      },
      [],
      { asEmulatedTask: true },
    );
    expect({ outcome: result.result.outcome, reason: result.result.reason }).toEqual({
      outcome: 'succeeded',
      reason: 'PullSecretProvisioned',
    });
    expect(result.result.kubernetes).toMatchObject({ management_cluster: 'mgmt-dns' });
    expect(jobWrites(dnsCluster).length).toBeGreaterThan(before);
    expect(jobWrites(dnsCluster).every((r) => r.identity === JOB)).toBe(true);
  });
});
