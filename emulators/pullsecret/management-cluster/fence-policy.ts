import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import {
  DEFAULT_LAYOUT,
  fenceNamespaceRule,
  fenceNamespaceWords,
  type NamespaceLayout,
} from '../../../shared/pull-secret/namespace-layout';
import { renderTerraformTemplate } from '../../common/terraform-template';

/** Where the fence lives in the repository: Terraform's template is the one source. */
export const FENCE_TEMPLATE = path.join(
  'terraform',
  'modules',
  'pullsecret-cluster-rbac',
  'templates',
  'management-cluster-fence.yaml.tftpl',
);

/**
 * An identity as it can appear inside the policy's CEL string literal: a user name or a Google
 * service account email. Quotes, backslashes and spaces would change the expression, so they are
 * refused rather than escaped.
 */
const IDENTITY = /^[A-Za-z0-9][A-Za-z0-9._@:+-]*$/;

/** The repository root: the nearest folder above `from` holding the fence template. */
function repositoryRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, FENCE_TEMPLATE))) return dir;
    if (path.dirname(dir) === dir)
      throw new Error(`The fence template ${FENCE_TEMPLATE} was not found above ${from}`);
  }
}

/**
 * Renders the template as Terraform's templatefile() renders it (emulators/common/terraform-template.ts)
 * with the variables the modules pass: the job's identity, and the layout's namespace rule and
 * words, computed as the pullsecret-namespace-layout module computes them (a test compares).
 */
export function renderFenceText(
  template: string,
  jobIdentity: string,
  layout: NamespaceLayout = DEFAULT_LAYOUT,
): string {
  if (!IDENTITY.test(jobIdentity))
    throw new Error(
      `Invalid job identity ${JSON.stringify(jobIdentity)}: expected a user name or service account email (letters, digits, . _ @ : + -)`,
    );
  return renderTerraformTemplate(template, {
    job_identity: jobIdentity,
    namespace_rule: fenceNamespaceRule(layout, FENCE_OWNER),
    namespace_words: fenceNamespaceWords(layout),
  });
}

/** The cluster a fenced request is about, as the layout module's `owner` local says it. */
const FENCE_OWNER =
  "(request.operation == 'DELETE' ? oldObject.metadata.labels['cluster-id'] : object.metadata.labels['cluster-id'])";

/** The rendered YAML text, as `terraform output -raw management_cluster_fence` prints it. */
export function renderFenceYaml(
  jobIdentity: string,
  options: { readonly layout?: NamespaceLayout; readonly root?: string } = {},
): string {
  const root = options.root ?? repositoryRoot(__dirname);
  return renderFenceText(
    fs.readFileSync(path.join(root, FENCE_TEMPLATE), 'utf8'),
    jobIdentity,
    options.layout,
  );
}

/**
 * The fence (the ValidatingAdmissionPolicy and its binding) for `jobIdentity`, parsed from the
 * Terraform template, so the local stack installs exactly what Terraform renders for a real cluster.
 */
export function renderFencePolicy(
  jobIdentity: string,
  options: { readonly layout?: NamespaceLayout; readonly root?: string } = {},
): Record<string, unknown>[] {
  const text = renderFenceYaml(jobIdentity, options);
  return YAML.parseAllDocuments(text).map((document) => {
    if (document.errors.length > 0)
      throw new Error(`The rendered fence is not valid YAML: ${document.errors[0]!.message}`);
    const object: unknown = document.toJSON();
    if (object === null || typeof object !== 'object' || Array.isArray(object))
      throw new Error('The rendered fence holds a document that is not an object');
    return object as Record<string, unknown>;
  });
}
