import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { CertificateAuthority } from '../../common/certificates';
import { issueServingCertificate } from '../../common/certificates';
import type { ReadyProcess } from '../../common/child-process';
import type { NamespaceLayout } from '../../../shared/pull-secret/namespace-layout';
import { writeKubeconfig } from '../../kube-apiserver/kubeconfig';
import { renderFencePolicy } from '../management-cluster/fence-policy';
import { applyManifest, renderClusterRbac, renderFence } from './cluster-rbac';
import { KubeReader } from '../../common/kube-admin';
import { HYPERSHIFT_IDENTITY, JOB_IDENTITY, type ManagementClusterMode } from './layout';

/** How the job reaches a management cluster: its entry in the job's MANAGEMENT_CLUSTERS. */
export interface JobClusterAccess {
  readonly endpoint: string;
  /** The cluster CA (IP endpoint only: a DNS endpoint and the gateway are publicly trusted). */
  readonly caCert?: string;
}

/** One local management cluster: a Kubernetes emulator, reached by the job in one of three modes. */
export interface ManagementCluster {
  readonly name: string;
  readonly mode: ManagementClusterMode;
  /** The Kubernetes emulator's own address (what the admin kubeconfig points at). */
  readonly endpoint: string;
  /** The emulator's CA: the cluster CA, or the local public CA for a DNS endpoint. */
  readonly caPem: string;
  /** The emulator's admin kubeconfig (kubectl, tests, the placement simulator). */
  readonly kubeconfig: string;
  /** The simulated HyperShift adapter's kubeconfig: HostedClusters, and reading Secrets. */
  readonly hypershiftKubeconfig: string;
  /** Set once the gateway is up for a connect-gateway cluster; the emulator itself otherwise. */
  jobAccess: JobClusterAccess;
  /**
   * The cluster's GKE resource name when it has GKE's IAM layer (the job reaches it at its own
   * endpoint); its allow policies are at `${endpoint}/_emulator/iam`.
   */
  readonly gkeCluster?: string;
}

/** An object the stack installs in every management cluster at start (CRDs). */
export interface SetupObject {
  /** The collection to POST to, e.g. `/apis/apiextensions.k8s.io/v1/customresourcedefinitions`. */
  readonly collection: string;
  readonly object: Record<string, unknown>;
}

/**
 * The simulated HyperShift adapter's rights: the stack's own manifest (Terraform grants nothing
 * to HyperShift). It manages HostedClusters and reads the pull secrets it checks.
 */
export function hypershiftRbac(identity: string = HYPERSHIFT_IDENTITY): string {
  const objects = [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'local-hypershift-adapter' },
      rules: [
        {
          apiGroups: ['hypershift.openshift.io'],
          resources: ['hostedclusters', 'hostedclusters/status'],
          verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
        },
        { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'local-hypershift-adapter' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'local-hypershift-adapter',
      },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: identity }],
    },
  ];
  return objects.map((object) => YAML.stringify(object)).join('---\n');
}

/**
 * Starts one Kubernetes emulator per management cluster, all at once: each authenticates Google
 * access tokens through the metadata server's token info (as GKE does) and the HyperShift
 * simulator by a kubeconfig token; a DNS-endpoint cluster serves a certificate of the local public
 * CA. Then, as an operator would, applies the job's RBAC and fence rendered from Terraform's
 * templates with kubectl, the HyperShift rights, and `setup` (CRDs).
 *
 * A cluster the job reaches at its own endpoint (ip, dns) also has GKE's IAM layer with `iam`
 * (the job's container.clusters.get comes from Terraform's grant, terraform/modules/runtime-grants.json). A cluster behind
 * Connect Gateway has none: what GKE's IAM makes of a request the gateway forwards is not
 * established here, and Terraform grants the job no container.* role for it.
 */
export async function startManagementClusters(options: {
  readonly clusters: readonly { readonly name: string; readonly mode: ManagementClusterMode }[];
  readonly root: string;
  /** The namespace layout the fence admits (relayoutFence changes it later). */
  readonly layout: NamespaceLayout;
  readonly workDir: string;
  readonly hypershiftToken: string;
  readonly tokenInfoUrl: string;
  readonly publicCa: CertificateAuthority;
  readonly setup: readonly SetupObject[];
  /** GKE's IAM layer: the configuration file, and each cluster's resource name. */
  readonly iam?: { readonly file: string; readonly clusterName: (name: string) => string };
  /** Starts `kube-apiserver` with these arguments as the named component. */
  readonly start: (component: string, args: string[]) => Promise<ReadyProcess>;
}): Promise<ManagementCluster[]> {
  return Promise.all(
    options.clusters.map(async ({ name, mode }) => {
      const dir = path.join(options.workDir, 'kube', name);
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const tokensFile = path.join(dir, 'tokens.json');
      fs.writeFileSync(
        tokensFile,
        JSON.stringify({ [options.hypershiftToken]: { user: HYPERSHIFT_IDENTITY } }),
        { mode: 0o600 },
      );
      const servingDir = path.join(dir, 'public-serving');
      if (mode === 'dns') {
        const certificate = issueServingCertificate(options.publicCa, servingDir, [
          'localhost',
          '127.0.0.1',
        ]);
        fs.writeFileSync(path.join(servingDir, 'ca.crt'), certificate.caPem);
      }
      const gkeCluster =
        options.iam && mode !== 'connect-gateway' ? options.iam.clusterName(name) : undefined;
      const started = await options.start(`kube-apiserver-${name}`, [
        '--data-dir',
        dir,
        '--rbac-file',
        tokensFile,
        '--google-token-info',
        options.tokenInfoUrl,
        ...(mode === 'dns' ? ['--serving-cert-dir', servingDir] : []),
        ...(options.iam && gkeCluster
          ? ['--iam-file', options.iam.file, '--gke-cluster', gkeCluster]
          : []),
      ]);
      const kubeconfig = started.info.kubeconfig as string;
      const endpoint = started.info.endpoint as string;
      const caPem = caOf(kubeconfig);
      const hypershiftKubeconfig = path.join(dir, 'hypershift.kubeconfig');
      writeKubeconfig(
        hypershiftKubeconfig,
        endpoint,
        caPem,
        options.hypershiftToken,
        HYPERSHIFT_IDENTITY,
      );
      const admin = new KubeReader(kubeconfig);
      for (const { collection, object } of options.setup) await admin.create(collection, object);
      // As an operator does: the fence alone first, then the RBAC and the HyperShift simulator's
      // rights. (The operator's second apply carries the fence again, unchanged: a strategic merge
      // patch of a built-in kind, which this emulator serves for core kinds only, so the stack
      // applies the RBAC documents alone.)
      const manifest = renderClusterRbac(
        options.root,
        {
          cluster: name,
          jobIdentity: JOB_IDENTITY,
          namespaces: null,
          credentialsCommand: `export KUBECONFIG=${kubeconfig}`,
        },
        { withFence: false },
      );
      await applyManifest(kubeconfig, renderFence(options.root, JOB_IDENTITY, options.layout));
      await applyManifest(kubeconfig, `${manifest}\n---\n${hypershiftRbac()}`);
      const port = new URL(endpoint).port;
      const jobAccess: JobClusterAccess =
        mode === 'dns' ? { endpoint: `https://localhost:${port}` } : { endpoint, caCert: caPem };
      return {
        name,
        mode,
        endpoint,
        caPem,
        kubeconfig,
        hypershiftKubeconfig,
        jobAccess,
        ...(gkeCluster ? { gkeCluster } : {}),
      };
    }),
  );
}

function caOf(kubeconfig: string): string {
  const config = YAML.parse(fs.readFileSync(kubeconfig, 'utf8')) as {
    clusters: { cluster: { 'certificate-authority-data': string } }[];
  };
  return Buffer.from(
    config.clusters[0]!.cluster['certificate-authority-data'],
    'base64',
  ).toString();
}

/**
 * The fence of another layout, installed over the one in place: what the operator's apply of the
 * changed pullsecret-cluster-rbac module does (kubernetes_manifest updates the policy in place;
 * this emulator serves no strategic merge patch for admission kinds, so the policy is replaced).
 */
export async function relayoutFence(
  root: string,
  kubeconfig: string,
  layout: NamespaceLayout,
): Promise<void> {
  const [policy] = renderFencePolicy(JOB_IDENTITY, { layout, root });
  const admin = new KubeReader(kubeconfig);
  const name = (policy!.metadata as { name: string }).name;
  const at = `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/${name}`;
  const stored = await admin.get(at);
  const { status, body } = await admin.request('PUT', at, {
    ...policy,
    metadata: {
      ...(policy!.metadata as object),
      resourceVersion: (stored?.metadata as { resourceVersion?: string } | undefined)
        ?.resourceVersion,
    },
  });
  if (status !== 200) throw new Error(`PUT ${at}: ${status} ${body}`);
}
