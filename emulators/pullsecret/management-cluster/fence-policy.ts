import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

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
 * Renders the template as Terraform's templatefile() would for this one variable: `${job_identity}`
 * is replaced and the escapes `$${` and `%%{` become literal. Any other interpolation or directive
 * means the template grew a feature this renderer does not know, which is an error, not a guess.
 */
export function renderFenceText(template: string, jobIdentity: string): string {
  if (!IDENTITY.test(jobIdentity))
    throw new Error(
      `Invalid job identity ${JSON.stringify(jobIdentity)}: expected a user name or service account email (letters, digits, . _ @ : + -)`,
    );
  const unknown = /(?<![$%])[$%]\{(?!job_identity\})/.exec(template.replace(/[$%]{2}\{/g, ''));
  if (unknown)
    throw new Error(
      `The fence template uses a Terraform interpolation or directive other than \${job_identity} (at "${template.slice(unknown.index, unknown.index + 30)}")`,
    );
  return template
    .replace(/(?<![$%])\$\{job_identity\}/g, jobIdentity)
    .replace(/\$\$\{/g, '${')
    .replace(/%%\{/g, '%{');
}

/** The rendered YAML text, as `terraform output -raw management_cluster_fence` prints it. */
export function renderFenceYaml(
  jobIdentity: string,
  root: string = repositoryRoot(__dirname),
): string {
  return renderFenceText(fs.readFileSync(path.join(root, FENCE_TEMPLATE), 'utf8'), jobIdentity);
}

/**
 * The fence (the ValidatingAdmissionPolicy and its binding) for `jobIdentity`, parsed from the
 * Terraform template, so the local stack installs exactly what Terraform renders for a real cluster.
 */
export function renderFencePolicy(
  jobIdentity: string,
  root: string = repositoryRoot(__dirname),
): Record<string, unknown>[] {
  const text = renderFenceYaml(jobIdentity, root);
  return YAML.parseAllDocuments(text).map((document) => {
    if (document.errors.length > 0)
      throw new Error(`The rendered fence is not valid YAML: ${document.errors[0]!.message}`);
    const object: unknown = document.toJSON();
    if (object === null || typeof object !== 'object' || Array.isArray(object))
      throw new Error('The rendered fence holds a document that is not an object');
    return object as Record<string, unknown>;
  });
}
