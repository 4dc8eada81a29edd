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
} from './layout';
import { gkeClusterResource, gkeIam } from './gke-grants';
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
  };
  /** The gateway's endpoint, when a cluster is reached through Connect Gateway. */
  readonly gateway?: string;
  /** The local "public" CA's certificate file: what NODE_EXTRA_CA_CERTS adds to Node's roots. */
  readonly publicCaFile: string;
  /**
   * What Terraform grants the job on the clusters' project for GKE (gke-grants.ts), as the
   * clusters' IAM layer holds it: Resource Manager's IAM needs the same to answer the doctor.
   */
  readonly gkeIam: IamConfigInput;
  /**
   * The job's variables for this: MANAGEMENT_CLUSTERS with endpoint entries (no kubeconfig), the
   * metadata server (detection left on, as on Cloud Run), and the public CA.
   */
  readonly jobEnv: Record<string, string>;
}

type StartEmulator = (name: string, args: string[], component?: string) => Promise<ReadyProcess>;

/** The metadata server of the job's Cloud Run instance: it issues the job's Google access tokens. */
async function startMetadataServer(emulator: StartEmulator): Promise<ClusterAccess['metadata']> {
  const metadataServer = await emulator('metadata-server', [
    '--service-account',
    JOB_IDENTITY,
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
  readonly workDir: string;
  readonly clusters: readonly { readonly name: string; readonly mode: ManagementClusterMode }[];
  readonly hypershiftToken: string;
  readonly setup: readonly SetupObject[];
  readonly emulator: StartEmulator;
}): Promise<ClusterAccess> {
  const publicCa = createCertificateAuthority(
    path.join(options.workDir, 'public-ca'),
    'HyperFleet local public root CA',
  );
  const metadata = await startMetadataServer(options.emulator);
  // Every local cluster is in the platform project, in its region (Terraform's `project` and
  // `location` of each management_clusters entry).
  const iam = gkeIam({
    clusters: options.clusters.map((c) => ({ mode: c.mode, project: LOCAL_PROJECT })),
    jobIdentity: JOB_IDENTITY,
    serviceAccounts: { [metadata.uniqueId]: JOB_IDENTITY },
  });
  const iamFile = path.join(options.workDir, 'gke-iam.json');
  fs.mkdirSync(options.workDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(iamFile, JSON.stringify(iam), { mode: 0o600 });
  const clusters = await startManagementClusters({
    clusters: options.clusters,
    root: options.root,
    workDir: options.workDir,
    hypershiftToken: options.hypershiftToken,
    tokenInfoUrl: metadata.tokenInfoUrl,
    publicCa,
    setup: options.setup,
    iam: {
      file: iamFile,
      clusterName: (name) => gkeClusterResource(LOCAL_PROJECT, LOCAL_REGION, name),
    },
    start: (component, args) => options.emulator('kube-apiserver', args, component),
  });
  const gateway = await startGateway(
    options,
    publicCa,
    metadata.tokenInfoUrl,
    clusters.filter((c) => c.mode === 'connect-gateway'),
  );
  const home = path.join(options.workDir, 'job-home');
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  return {
    clusters,
    metadata,
    ...(gateway ? { gateway } : {}),
    publicCaFile: publicCa.certFile,
    gkeIam: iam,
    jobEnv: {
      MANAGEMENT_CLUSTERS: JSON.stringify(
        Object.fromEntries(clusters.map((c) => [c.name, c.jobAccess])),
      ),
      GCE_METADATA_HOST: metadata.host,
      NODE_EXTRA_CA_CERTS: publicCa.certFile,
      // An empty home: no gcloud user credentials of the developer's can stand in for the
      // metadata server's token (google-auth-library reads ~/.config/gcloud before it asks).
      HOME: home,
    },
  };
}
