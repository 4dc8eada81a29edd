// Issue 26, item 7, Terraform side: the module refuses a plain-http HyperFleet API URL (the API
// token and pull secrets would travel in cleartext) and a job image not pinned by digest (a tag can
// be moved to other code after review). The module needs the google provider, so its `hyperfleet_api`
// and `job` variable blocks are copied verbatim into a module of their own, where real Terraform
// evaluates their validations offline, exactly as `terraform plan` does for an operator.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from '@cdktf/hcl2json';
import { TERRAFORM_ROOT } from '../../helpers/terraform';
import { TerraformModuleHarness } from '../../helpers/terraform-run';
import { describeWithTool } from '../../helpers/required-tools';
import { variableBlockText, variablesOnlyModule } from '../../helpers/terraform-variables';

const VARIABLES = path.join(TERRAFORM_ROOT, 'modules/pullsecret-adapter/variables.tf');
const EXAMPLE = path.join(TERRAFORM_ROOT, 'examples/basic/terraform.tfvars.example');
const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;
const REPO = 'us-central1-docker.pkg.dev/hyperfleet-platform-prod/pullsecret/pull-secret-job';

describe('the variable block reader', () => {
  it('copies a whole block, braces inside strings included', () => {
    const block = variableBlockText(VARIABLES, 'hyperfleet_api');
    expect(block).toMatch(/^variable "hyperfleet_api" \{/);
    expect(block).toContain('{1,63}');
    expect(block.endsWith('\n}')).toBe(true);
    expect(block).not.toContain('variable "job"');
  });
});

describeWithTool('terraform', 'terraform: the HyperFleet URL and the job image (evaluated by terraform, offline)', () => {
  let dir: string;
  let harness: TerraformModuleHarness;
  const apply = (hyperfleetUrl: string, image: string) =>
    harness.apply({ hyperfleet_api: { base_url: hyperfleetUrl }, job: { image } });

  beforeAll(() => {
    dir = variablesOnlyModule(VARIABLES, ['hyperfleet_api', 'job']);
    harness = new TerraformModuleHarness(dir, ['hyperfleet_api', 'job']);
  });
  afterAll(() => {
    harness?.dispose();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('accepts an https API URL and an image pinned by digest (with or without its tag)', () => {
    for (const image of [`${REPO}@${DIGEST}`, `${REPO}:0.1.0@${DIGEST}`]) {
      const result = apply('https://hyperfleet-api.internal.example.com', image);
      expect({ image, ok: result.ok, diagnostics: result.ok ? '' : result.diagnostics }).toEqual({ image, ok: true, diagnostics: '' });
    }
  });

  it.each(['http://hyperfleet-api.internal.example.com', 'http://127.0.0.1:8000', 'hyperfleet-api:8000'])('refuses the API URL %s: https only (a function never reaches a loopback API)', (url) => {
    const result = apply(url, `${REPO}@${DIGEST}`);
    expect(result.ok).toBe(false);
    expect(result.diagnostics).toContain('hyperfleet_api.base_url must be an https:// URL');
    expect(result.diagnostics).toContain('the API token and pull secrets travel on it');
  });

  it.each([
    ['a tag', `${REPO}:0.1.0`],
    ['no tag at all', REPO],
    ['a short digest', `${REPO}@sha256:0123abcd`],
    ['a digest in capitals', `${REPO}@${DIGEST.toUpperCase().replace('SHA256', 'sha256')}`],
  ])('refuses a job image pinned by %s, saying how to find the digest', (_case, image) => {
    const result = apply('https://hyperfleet-api.internal.example.com', image);
    expect(result.ok).toBe(false);
    expect(result.diagnostics).toContain('job.image must be pinned by digest');
    expect(result.diagnostics).toContain('@sha256:');
    expect(result.diagnostics).toContain("docker inspect --format='{{index .RepoDigests 0}}'");
  });

  it('accepts the example tfvars as written (its image carries a digest, its URL is https)', async () => {
    const tfvars = (await parse('terraform.tfvars', fs.readFileSync(EXAMPLE, 'utf8'))) as { hyperfleet_api: { base_url: string }; job: { image: string } };
    expect(tfvars.job.image).toMatch(/@sha256:[0-9a-f]{64}$/);
    const result = harness.apply({ hyperfleet_api: tfvars.hyperfleet_api, job: tfvars.job });
    expect(result.diagnostics).not.toMatch(/Error/);
    expect(result.ok).toBe(true);
  });
});
