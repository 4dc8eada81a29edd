import type { NamespaceLayout } from '../../../shared/pull-secret/namespace-layout';
import fs from 'node:fs';
import path from 'node:path';
import {
  createCertificateAuthority,
  issueServingCertificate,
  type CertificateAuthority,
} from '../../common/certificates';
import type { ReadyProcess } from '../../common/child-process';
import type { IamConfigInput } from '../../common/iam/iam-config';
import type { ConnectGatewayConfig } from '../../connect-gateway/server';
import {
  JOB_IDENTITY,
  LOCAL_FLEET_LOCATION,
  LOCAL_PROJECT,
  LOCAL_PROJECT_NUMBER,
  LOCAL_REGION,
  type ManagementClusterMode,
  OPERATOR_IDENTITY,
  RUNTIME_IDENTITIES,
} from './layout';
import {
  startManagementClusters,
  type ManagementCluster,
  type SetupObject,
} from './management-clusters';

/** The job's way to its management clusters, as production gives it, and what runs behind it. */
export interface ClusterAccess {
  readonly clusters: ManagementCluster[];
  /** The metadata server's address (GCE_METADATA_HOST), its token-info URL and the job's unique id. */
  readonly metadata: {
    readonly host: string;
    readonly endpoint: string;
    readonly tokenInfoUrl: string;
    readonly uniqueId: string;
    /**
     * Every component's own identity (as Cloud Run gives each service its own): its
     * GCE_METADATA_HOST and numeric unique id, by email; one token info knows them all.
     */
    readonly accounts: Readonly<
      Record<string, { readonly host: string; readonly uniqueId: string }>
    >;
  };
  /** The local "public" CA: it also issues the certificates of the Google API emulators. */
  readonly publicCa: CertificateAuthority;
  /**
   * A serving certificate of the public CA for a Google API emulator on 127.0.0.1, in a folder of
   * its own (ca.crt, server.crt, server.key: its --serving-cert-dir).
   */
  servingCertDir(name: string): string;
  /**
   * The flags of a Google API emulator that checks every call as Google does: the stack's IAM,
   * token info, calls without a token refused, TLS from the public CA.
   */
  enforcedApiArgs(name: string): string[];
  /** The gateway's endpoint, when a cluster is reached through Connect Gateway. */
  readonly gateway?: string;
  /** The local "public" CA's certificate file: what NODE_EXTRA_CA_CERTS adds to Node's roots. */
  readonly publicCaFile: string;
  /**
   * The stack's IAM configuration file (stack-iam.ts), the one every emulator that authorizes
   * calls reads: the management clusters' GKE layer here, Secret Manager, Cloud Run, Cloud Tasks.
   */
  readonly iamFile: string;
  /**
   * The job's variables for this: MANAGEMENT_CLUSTERS_FILE, a file of endpoint entries (no
   * kubeconfig) as Terraform mounts one from Cloud Storage, the metadata server (detection left
   * on, as on Cloud Run), and the public CA.
   */
  readonly jobEnv: Record<string, string>;
}

type StartEmulator = (name: string, args: string[], component?: string) => Promise<ReadyProcess>;

/** The metadata server of the job's Cloud Run instance: it issues the job's Google access tokens. */
async function startMetadataServer(emulator: StartEmulator): Promise<ClusterAccess['metadata']> {
  const metadataServer = await emulator('metadata-server', [
    '--service-account',
    JOB_IDENTITY,
    // The adapter, the launcher (Cloud Tasks mints its tokens), the reporter and the operator
    // (the stack's own tools, the console, tests) each on their own port.
    '--also-serve',
    [
      ...Object.values(RUNTIME_IDENTITIES).filter((e) => e !== JOB_IDENTITY),
      OPERATOR_IDENTITY,
    ].join(','),
    '--project-id',
    LOCAL_PROJECT,
    '--project-number',
    LOCAL_PROJECT_NUMBER,
    '--region',
    LOCAL_REGION,
  ]);
  const endpoint = metadataServer.info.endpoint as string;
  return {
    host: new URL(endpoint).host,
    endpoint,
    tokenInfoUrl: `${endpoint}/tokeninfo`,
    uniqueId: String(metadataServer.info.uniqueId),
    accounts: Object.fromEntries(
      (metadataServer.info.accounts as { email: string; host: string; uniqueId: string }[]).map(
        (a) => [a.email, { host: a.host, uniqueId: a.uniqueId }],
      ),
    ),
  };
}

/**
 * The Connect Gateway in front of `gatewayClusters` (none: not started), serving a certificate of
 * the local "public" CA; each of those clusters' job access becomes its gateway URL. Its endpoint.
 */
async function startGateway(
  options: { readonly workDir: string; readonly emulator: StartEmulator },
  publicCa: CertificateAuthority,
  tokenInfoUrl: string,
  gatewayClusters: ManagementCluster[],
): Promise<string | undefined> {
  if (gatewayClusters.length === 0) return undefined;
  const dir = path.join(options.workDir, 'connect-gateway');
  const certificate = issueServingCertificate(publicCa, dir, ['localhost', '127.0.0.1']);
  fs.writeFileSync(path.join(dir, 'ca.crt'), certificate.caPem);
  const config: ConnectGatewayConfig = {
    memberships: gatewayClusters.map((c) => ({
      projectNumber: LOCAL_PROJECT_NUMBER,
      location: LOCAL_FLEET_LOCATION,
      name: c.name,
      backend: c.endpoint,
      backendCaPem: c.caPem,
    })),
    // What Terraform grants the job on the fleet host project (modules/management-clusters).
    grants: { [JOB_IDENTITY]: 'roles/gkehub.gatewayEditor' },
    tokenInfoUrl,
  };
  const configFile = path.join(dir, 'config.json');
  fs.writeFileSync(configFile, JSON.stringify(config), { mode: 0o600 });
  const started = await options.emulator('connect-gateway', [
    '--config',
    configFile,
    '--serving-cert-dir',
    dir,
  ]);
  const urls = started.info.memberships as Record<string, string>;
  for (const cluster of gatewayClusters) cluster.jobAccess = { endpoint: urls[cluster.name]! };
  return started.info.endpoint as string;
}

/**
 * Starts what the job's real identity path needs: a metadata server that issues the job's Google
 * access tokens, the management clusters (authenticating those tokens as GKE does, RBAC from
 * Terraform's templates), and a Connect Gateway in front of the clusters reached that way.
 */
export async function startClusterAccess(options: {
  readonly root: string;
  /** The namespace layout the fence admits. */
  readonly layout: NamespaceLayout;
  readonly workDir: string;
  readonly clusters: readonly { readonly name: string; readonly mode: ManagementClusterMode }[];
  readonly hypershiftToken: string;
  readonly setup: readonly SetupObject[];
  readonly emulator: StartEmulator;
  /** The stack's IAM, given the service accounts' unique ids (numeric id -> email). */
  readonly iam: (serviceAccounts: Readonly<Record<string, string>>) => IamConfigInput;
}): Promise<ClusterAccess> {
  const publicCa = createCertificateAuthority(
    path.join(options.workDir, 'public-ca'),
    'HyperFleet local public root CA',
  );
  const metadata = await startMetadataServer(options.emulator);
  // The IAM of every emulator, once the identities' unique ids are known.
  const iam = options.iam(
    Object.fromEntries(Object.entries(metadata.accounts).map(([email, a]) => [a.uniqueId, email])),
  );
  const iamFile = path.join(options.workDir, 'runtime-iam.json');
  fs.mkdirSync(options.workDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(iamFile, JSON.stringify(iam), { mode: 0o600 });
  const clusters = await startManagementClusters({
    clusters: options.clusters,
    root: options.root,
    layout: options.layout,
    workDir: options.workDir,
    hypershiftToken: options.hypershiftToken,
    tokenInfoUrl: metadata.tokenInfoUrl,
    publicCa,
    setup: options.setup,
    iam: {
      file: iamFile,
      // Every local cluster is in the platform project, in its region (Terraform's `project` and
      // `location` of each management_clusters entry).
      clusterName: (name) => `projects/${LOCAL_PROJECT}/locations/${LOCAL_REGION}/clusters/${name}`,
    },
    start: (component, args) => options.emulator('kube-apiserver', args, component),
  });
  const gateway = await startGateway(
    options,
    publicCa,
    metadata.tokenInfoUrl,
    clusters.filter((c) => c.mode === 'connect-gateway'),
  );
  const servingCertDir = (name: string) => {
    const dir = path.join(options.workDir, `${name}-tls`);
    const certificate = issueServingCertificate(publicCa, dir, ['localhost', '127.0.0.1']);
    fs.writeFileSync(path.join(dir, 'ca.crt'), certificate.caPem);
    return dir;
  };
  const home = path.join(options.workDir, 'job-home');
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  // The list as production gives it, a file (docs/management-clusters.md, "Sizing"): every local
  // execution, and so every e2e test, reads it through MANAGEMENT_CLUSTERS_FILE.
  const clustersFile = path.join(options.workDir, 'management-clusters.json');
  fs.writeFileSync(
    clustersFile,
    JSON.stringify(Object.fromEntries(clusters.map((c) => [c.name, c.jobAccess])), null, 2),
    { mode: 0o644 },
  );
  return {
    clusters,
    metadata,
    ...(gateway ? { gateway } : {}),
    publicCa,
    servingCertDir,
    enforcedApiArgs(name) {
      return [
        '--iam-file',
        iamFile,
        '--google-token-info',
        metadata.tokenInfoUrl,
        '--enforce-iam',
        '--serving-cert-dir',
        servingCertDir(name),
      ];
    },
    publicCaFile: publicCa.certFile,
    iamFile,
    jobEnv: {
      MANAGEMENT_CLUSTERS_FILE: clustersFile,
      GCE_METADATA_HOST: metadata.host,
      NODE_EXTRA_CA_CERTS: publicCa.certFile,
      // The roots grpc-js trusts: the Google API emulators' certificates are the public CA's.
      GRPC_DEFAULT_SSL_ROOTS_FILE_PATH: publicCa.certFile,
      // An empty home: no gcloud user credentials of the developer's can stand in for the
      // metadata server's token (google-auth-library reads ~/.config/gcloud before it asks).
      HOME: home,
    },
  };
}
