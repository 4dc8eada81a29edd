import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { ReadyProcess } from '../common/child-process';
import type { RbacTable } from '../kube-apiserver/rbac';
import { writeKubeconfig } from '../kube-apiserver/kubeconfig';
import { KubeReader } from './kube-admin';
import { HYPERSHIFT_IDENTITY, JOB_IDENTITY } from './layout';

/** One local management cluster: a Kubernetes emulator and a kubeconfig per identity. */
export interface ManagementCluster {
  readonly name: string;
  readonly endpoint: string;
  /** The emulator's admin kubeconfig (kubectl, tests, the placement simulator). */
  readonly kubeconfig: string;
  /** The job's kubeconfig: its own identity, cluster-wide Secret rights fenced by the policy. */
  readonly jobKubeconfig: string;
  /** The simulated HyperShift adapter's kubeconfig: HostedClusters, and reading Secrets. */
  readonly hypershiftKubeconfig: string;
}

/** The bearer tokens of the identities the stack adds to every management cluster. */
export interface ClusterTokens {
  readonly job: string;
  readonly hypershift: string;
}

/**
 * Rights as Terraform grants them: the job may get, create, patch and delete Secrets in every
 * namespace (a ClusterRoleBinding: the `clusters-{id}` namespaces do not exist when Terraform
 * runs), fenced by the admission policy; the HyperShift adapter manages HostedClusters.
 */
export function managementClusterRbac(tokens: ClusterTokens): RbacTable {
  return {
    [tokens.job]: {
      user: JOB_IDENTITY,
      rules: [
        { resources: ['secrets'], verbs: ['get', 'create', 'patch', 'delete'], namespaces: ['*'] },
      ],
    },
    [tokens.hypershift]: {
      user: HYPERSHIFT_IDENTITY,
      rules: [
        { resources: ['hostedclusters'], verbs: ['*'], namespaces: ['*'] },
        { resources: ['secrets'], verbs: ['get'], namespaces: ['*'] },
      ],
    },
  };
}

/** An object the stack installs in every management cluster at start (policy, binding, CRD). */
export interface SetupObject {
  /** The collection to POST to, e.g. `/apis/apiextensions.k8s.io/v1/customresourcedefinitions`. */
  readonly collection: string;
  readonly object: Record<string, unknown>;
}

/**
 * Starts one Kubernetes emulator per management cluster, all at once (start-up time is the sum
 * of the slowest, not of all), writes a kubeconfig per identity and installs `setup` in each.
 */
export async function startManagementClusters(options: {
  readonly names: readonly string[];
  readonly workDir: string;
  readonly tokens: ClusterTokens;
  readonly setup: readonly SetupObject[];
  /** Starts `kube-apiserver` with these arguments as the named component. */
  readonly start: (component: string, args: string[]) => Promise<ReadyProcess>;
}): Promise<ManagementCluster[]> {
  return Promise.all(
    options.names.map(async (name) => {
      const dir = path.join(options.workDir, 'kube', name);
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const rbacFile = path.join(dir, 'rbac.json');
      fs.writeFileSync(rbacFile, JSON.stringify(managementClusterRbac(options.tokens)), {
        mode: 0o600,
      });
      const started = await options.start(`kube-apiserver-${name}`, [
        '--data-dir',
        dir,
        '--rbac-file',
        rbacFile,
      ]);
      const kubeconfig = started.info.kubeconfig as string;
      const endpoint = started.info.endpoint as string;
      const caPem = caOf(kubeconfig);
      const jobKubeconfig = path.join(dir, 'job.kubeconfig');
      const hypershiftKubeconfig = path.join(dir, 'hypershift.kubeconfig');
      writeKubeconfig(jobKubeconfig, endpoint, caPem, options.tokens.job, JOB_IDENTITY);
      writeKubeconfig(
        hypershiftKubeconfig,
        endpoint,
        caPem,
        options.tokens.hypershift,
        HYPERSHIFT_IDENTITY,
      );
      const admin = new KubeReader(kubeconfig);
      for (const { collection, object } of options.setup) await admin.create(collection, object);
      return { name, endpoint, kubeconfig, jobKubeconfig, hypershiftKubeconfig };
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
