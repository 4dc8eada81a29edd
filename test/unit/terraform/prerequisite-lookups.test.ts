// Issue 39 item 5 (4 and 5): the prerequisites the first apply needs but does not create are looked
// up at plan, and a lookup must not keep `terraform destroy` from running once its prerequisite is
// gone. First, Terraform's own behaviour, run offline on its built-in terraform_remote_state data
// source (a local state file stands in for the prerequisite: readable, listing nothing, or
// unreadable): a data source whose read fails blocks destroy; a postcondition stops plan and apply
// but not destroy; a check block's lookup is only ever a warning. Then the modules,
// on the parsed HCL: every lookup is of a kind that lets destroy through.
import path from 'node:path';
import { loadModules, block, TERRAFORM_ROOT, type TfBody, type TfModule } from '../../helpers/terraform';
import { TerraformRoot } from '../../helpers/terraform-run';
import { describeWithTool } from '../../helpers/required-tools';

/** A state file whose only output is `topic`: the prerequisite exists. */
const PRESENT = JSON.stringify({ version: 4, terraform_version: '1.11.0', serial: 1, lineage: 'prereq', outputs: { topic: { value: 'sentinel', type: 'string' } }, resources: [] });
/** A state file without outputs: the lookup succeeds and finds nothing (an empty list). */
const NOTHING_LISTED = JSON.stringify({ version: 4, terraform_version: '1.11.0', serial: 2, lineage: 'prereq', outputs: {}, resources: [] });
/** Not a state file: the lookup's read fails, as google_pubsub_topic's does on a missing topic. */
const UNREADABLE = 'gone';

const lookup = (lifecycle = '') => `
  backend = "local"
  config  = { path = "\${path.module}/prerequisite.tfstate" }${lifecycle}`;

/** Three roots, one per way of looking a prerequisite up, each with a resource that depends on it. */
const ROOTS = {
  plain: `data "terraform_remote_state" "prerequisite" {${lookup()}
}
resource "terraform_data" "uses" {
  input = data.terraform_remote_state.prerequisite.outputs
}
`,
  postcondition: `data "terraform_remote_state" "prerequisite" {${lookup(`
  lifecycle {
    postcondition {
      condition     = contains(keys(self.outputs), "topic")
      error_message = "the prerequisite is missing: create it with THE COMMAND."
    }
  }`)}
}
resource "terraform_data" "uses" {
  input = data.terraform_remote_state.prerequisite.outputs
}
`,
  check: `check "prerequisite" {
  data "terraform_remote_state" "prerequisite" {${lookup()}
  }
  assert {
    condition     = contains(keys(data.terraform_remote_state.prerequisite.outputs), "topic")
    error_message = "the prerequisite is missing: create it with THE COMMAND."
  }
}
resource "terraform_data" "uses" {
  input = "independent of the check"
}
`,
};

describeWithTool('terraform', 'Terraform, offline: a prerequisite that is gone, at plan and at destroy', () => {
  const roots: TerraformRoot[] = [];
  /** A root of this kind, applied while its prerequisite exists, and the prerequisite then set to `gone`. */
  const appliedThenGone = (kind: keyof typeof ROOTS, gone: string) => {
    const root = new TerraformRoot({ 'main.tf': ROOTS[kind], 'prerequisite.tfstate': PRESENT });
    roots.push(root);
    const apply = root.run('apply', '-auto-approve', '-input=false', '-no-color');
    expect(apply.text).toContain('Apply complete');
    root.write({ 'prerequisite.tfstate': gone });
    return root;
  };
  const destroy = (root: TerraformRoot) => root.run('destroy', '-auto-approve', '-input=false', '-no-color');
  afterAll(() => roots.forEach((root) => root.dispose()));

  it('a data source whose read fails blocks destroy (hence no prerequisite is looked up that way)', () => {
    const root = appliedThenGone('plain', UNREADABLE);
    const result = destroy(root);
    expect(result.status).not.toBe(0);
    expect(result.text).toContain('Error: Unsupported state file format');
    expect(result.text).not.toContain('Destroy complete');
  });

  it('a postcondition on a lookup that lists nothing stops the plan with its message, and not the destroy', () => {
    const root = appliedThenGone('postcondition', NOTHING_LISTED);
    const plan = root.run('plan', '-input=false', '-no-color');
    expect(plan.status).not.toBe(0);
    expect(plan.text).toContain('Error: Resource postcondition failed');
    expect(plan.text).toContain('the prerequisite is missing: create it with THE COMMAND.');
    // The refresh that starts a destroy lowers the failed postcondition to a warning, and Terraform
    // does not print that walk's warnings (context_plan.go, destroyPlan): nothing shows.
    const result = destroy(root);
    expect(result.text).not.toContain('Error');
    expect(result.text).toContain('Destroy complete! Resources: 1 destroyed.');
    expect(result.status).toBe(0);
  });

  it("a check block's lookup whose read fails is a warning on plan, and lets destroy through", () => {
    const root = appliedThenGone('check', UNREADABLE);
    const plan = root.run('plan', '-input=false', '-no-color');
    expect(plan.status).toBe(0);
    expect(plan.text).toContain('Warning: Unsupported state file format');
    // The assertion is not evaluated while its data source fails: the read's error is the message.
    expect(plan.text).not.toContain('THE COMMAND');
    const result = destroy(root);
    expect(result.text).toContain('Destroy complete! Resources: 1 destroyed.');
    expect(result.status).toBe(0);
  });
});

/**
 * How each top-level data source type the modules use behaves when what it reads is missing, and so
 * why it cannot block a destroy. A type not here fails the test: decide first.
 */
const TOP_LEVEL_LOOKUPS: Record<string, string> = {
  google_secret_manager_secrets: 'lists secrets by filter: a missing secret is an empty list (postcondition)',
  google_artifact_registry_repositories: 'lists repositories by name: a missing repository is an empty list (postcondition)',
  google_artifact_registry_docker_images: "lists a repository's images, a 404 for a missing repository: counted only on the repositories list",
  google_secret_manager_secret_version: 'reads one version, a 404 for a secret without one: counted only on the secrets list',
  google_project: "the platform project the module deploys into, or the tenant project whose bindings it holds (its CMEK agent's number): removing it removes the module's own resources",
  google_client_config: "the provider's own credentials: no API call",
};

/** Data sources that may stand only on the list lookup before them: their count is that list's verdict. */
const GATED: Record<string, string> = {
  'data.google_artifact_registry_docker_images.job_image': 'local.job_image_repository_exists',
  'data.google_secret_manager_secret_version.hyperfleet_token': 'local.token_secret_exists',
};

describe('the modules look prerequisites up so that a destroy goes through once one is gone', () => {
  let modules: TfModule[];
  let adapter: TfModule;
  const lifecycleOf = (body: TfBody) => block(body, 'lifecycle');
  const dataBody = (type: string, name: string) => adapter.data.find((d) => d.type === type && d.name === name)!.body;

  beforeAll(async () => {
    modules = await loadModules();
    adapter = modules.find((m) => m.dir === path.join(TERRAFORM_ROOT, 'modules/pullsecret-adapter'))!;
  });

  it('reads, outside check blocks, only lookups that list (or read nothing that can be removed first)', () => {
    const topLevel = modules.flatMap((m) => m.data.filter((d) => !d.check).map((d) => `${path.relative(TERRAFORM_ROOT, m.dir)}: ${d.type}`));
    expect(topLevel.length).toBeGreaterThanOrEqual(6);
    expect(topLevel.filter((entry) => !(entry.split(': ')[1]! in TOP_LEVEL_LOOKUPS))).toEqual([]);
  });

  it('reads a single object that no list can find (Sentinel\'s topic, a management cluster) only in a check block', () => {
    const singles = modules.flatMap((m) => m.data.filter((d) => ['google_pubsub_topic', 'google_container_cluster'].includes(d.type)).map((d) => `${path.relative(TERRAFORM_ROOT, m.dir)}: ${d.check}: data.${d.type}.${d.name}`));
    expect(singles.sort()).toEqual([
      'modules/pullsecret-adapter/modules/gke-workload-identity: workload_identity: data.google_container_cluster.management',
      'modules/pullsecret-adapter: sentinel_topic: data.google_pubsub_topic.sentinel',
    ]);
  });

  // Item 3: the GKE Workload Identity pool PROJECT.svc.id.goog is a prerequisite of the reader
  // bindings; the plan warns when a GKE management cluster of that project lacks it.
  it('checks GKE Workload Identity on each GKE management cluster of the pool\'s project, only when there are reader bindings', () => {
    const call = adapter.modules.gke_workload_identity!;
    expect(call.source).toBe('./modules/gke-workload-identity');
    expect(call.for_each).toBe('${local.gke_pool_clusters}');
    const clusters = String(adapter.locals.gke_pool_clusters);
    expect(clusters).toMatch(/^\$\{length\(var\.workload_identity\.reader_bindings\) == 0 \? \{\} :/);
    expect(clusters).toContain('cluster.kind == "gke"');
    expect(clusters).toContain('cluster.project == local.gke_pool_project');
    const check = modules.find((m) => m.dir.endsWith('modules/gke-workload-identity'))!;
    const assertion = JSON.stringify(check.strings.filter((s) => s.includes('workload_pool')));
    expect(assertion).toContain('workload_identity_config[0].workload_pool');
    expect(assertion).toContain('.svc.id.goog');
    expect(check.strings.join('\n')).toContain('gcloud container clusters update');
  });

  it('reads what fails on a missing parent only once the list before it found that parent', () => {
    for (const [address, gate] of Object.entries(GATED)) {
      const [, type, name] = address.split('.') as [string, string, string];
      expect({ address, count: dataBody(type, name).count }).toEqual({ address, count: `\${${gate} ? 1 : 0}` });
    }
  });

  it('names each missing prerequisite in a postcondition of its lookup, with the command that creates it', () => {
    const expected: Record<string, RegExp> = {
      'google_secret_manager_secrets.hyperfleet_token': /gcloud secrets create/,
      'google_secret_manager_secret_version.hyperfleet_token': /gcloud secrets versions add/,
      'google_artifact_registry_repositories.job_image': /gcloud artifacts repositories create/,
      'google_artifact_registry_docker_images.job_image': /docker push/,
    };
    for (const [address, command] of Object.entries(expected)) {
      const [type, name] = address.split('.') as [string, string];
      const postcondition = block(lifecycleOf(dataBody(type, name)), 'postcondition');
      expect({ address, message: String(postcondition.error_message) }).toEqual({ address, message: expect.stringMatching(command) });
    }
  });

  // Item 5: google_secret_manager_secret_version always sets enabled = true (provider v7.45.0,
  // data_source_secret_manager_secret_version.go, d.Set("enabled", true)), so a postcondition on it
  // never fails; destroy_time is what the API reports for a destroyed version.
  it('checks the token\'s latest version on destroy_time, not on the enabled the provider always sets', () => {
    const postcondition = block(lifecycleOf(dataBody('google_secret_manager_secret_version', 'hyperfleet_token')), 'postcondition');
    expect(String(postcondition.condition)).toContain('self.destroy_time');
    const conditions = modules.flatMap((m) => m.strings).filter((s) => /self\.enabled\b/.test(s));
    expect(conditions).toEqual([]);
  });
});
