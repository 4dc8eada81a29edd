import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { renderTerraformTemplate } from '../../common/terraform-template';
import type { NamespaceLayout } from '../../../shared/pull-secret/namespace-layout';
import { KubeReader } from '../../common/kube-admin';
import { renderFenceYaml } from '../management-cluster/fence-policy';

const TEMPLATES = path.join('terraform', 'modules', 'pullsecret-cluster-rbac', 'templates');
export const RBAC_TEMPLATE = path.join(TEMPLATES, 'management-cluster-rbac.yaml.tftpl');
export const FENCE_TEMPLATE = path.join(TEMPLATES, 'management-cluster-fence.yaml.tftpl');

/** What Terraform's management-clusters module passes the templates for one cluster. */
export interface ClusterRbacInputs {
  readonly cluster: string;
  readonly jobIdentity: string;
  /** null: cluster-wide (a ClusterRoleBinding, fenced); a list: RoleBindings there only. */
  readonly namespaces: readonly string[] | null;
  readonly credentialsCommand: string;
  /** The operator's namespace layout the fence admits (default `clusters-{id}`). */
  readonly layout?: NamespaceLayout;
}

/**
 * The job's RBAC and the admission fence for one cluster, exactly as the module's
 * `management_cluster_rbac` output renders them (`join("\n---\n", [trimspace(fence),
 * trimspace(rbac)])` in modules/management-clusters/main.tf: the fence first): the YAML an operator pipes into
 * `kubectl apply -f -`. A test compares this with Terraform's own rendering.
 */
export function renderClusterRbac(
  root: string,
  inputs: ClusterRbacInputs,
  /** withFence false: the RBAC documents only (the fence applied on its own before). */
  options: { readonly withFence?: boolean } = {},
): string {
  const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
  const rbac = renderTerraformTemplate(read(RBAC_TEMPLATE), {
    cluster: inputs.cluster,
    credentials_command: inputs.credentialsCommand,
    job_service_account: inputs.jobIdentity,
    namespaces: inputs.namespaces ?? [],
    cluster_wide: inputs.namespaces === null,
  });
  return options.withFence === false
    ? rbac.trim()
    : [renderFence(root, inputs.jobIdentity, inputs.layout), rbac.trim()].join('\n---\n');
}

/** The fence alone, as the module's `management_cluster_fence` output renders it. */
export function renderFence(root: string, jobIdentity: string, layout?: NamespaceLayout): string {
  return renderFenceYaml(jobIdentity, { root, ...(layout ? { layout } : {}) }).trim();
}

/** Where kubectl is, if on PATH. */
export function findKubectl(pathVariable = process.env.PATH ?? ''): string | undefined {
  for (const dir of pathVariable.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, 'kubectl');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * Applies a multi-document manifest as an operator does: `kubectl apply -f -` with the admin
 * kubeconfig. Without kubectl on PATH the same objects are created through the API in the same
 * order (what a first `kubectl apply` does), so a machine without kubectl still runs the stack.
 */
export async function applyManifest(
  kubeconfig: string,
  manifest: string,
): Promise<'kubectl' | 'api'> {
  const kubectl = findKubectl();
  if (kubectl) {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(kubectl, ['--kubeconfig', kubeconfig, 'apply', '-f', '-'], {
        stdio: ['pipe', 'ignore', 'pipe'],
        env: { PATH: process.env.PATH, HOME: path.dirname(kubeconfig) },
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0
          ? resolve()
          : reject(new Error(`kubectl apply failed (exit ${code}): ${stderr.trim()}`)),
      );
      child.stdin.end(manifest);
    });
    return 'kubectl';
  }
  const admin = new KubeReader(kubeconfig);
  for (const document of YAML.parseAllDocuments(manifest)) {
    const object = document.toJS() as Record<string, unknown> | null;
    if (object) await admin.create(collectionOf(object), object);
  }
  return 'api';
}

const PLURALS: Record<string, string> = {
  ClusterRole: 'clusterroles',
  ClusterRoleBinding: 'clusterrolebindings',
  Role: 'roles',
  RoleBinding: 'rolebindings',
  ValidatingAdmissionPolicy: 'validatingadmissionpolicies',
  ValidatingAdmissionPolicyBinding: 'validatingadmissionpolicybindings',
  CustomResourceDefinition: 'customresourcedefinitions',
};

/** The POST collection of a manifest object (the kinds the stack applies). */
function collectionOf(object: Record<string, unknown>): string {
  const apiVersion = String(object.apiVersion);
  const plural = PLURALS[String(object.kind)];
  if (!plural) throw new Error(`The stack cannot apply a ${String(object.kind)} without kubectl`);
  const namespace = (object.metadata as { namespace?: string } | undefined)?.namespace;
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return namespace ? `${base}/namespaces/${namespace}/${plural}` : `${base}/${plural}`;
}
