// Issue 27 §4: tenant onboarding that scales. The rights in customer projects come from one custom
// role (organization level) and one conditional binding per identity and per project or folder,
// made by modules/pullsecret-tenant-project; the main module holds none. The bindings' decisions
// run through real `terraform apply` offline (modules/bindings needs no provider).
import path from 'node:path';
import { loadModules, moduleAt, TERRAFORM_ROOT, type TfModule } from '../../helpers/terraform';
import { TerraformModuleHarness } from '../../helpers/terraform-run';
import { describeWithTool } from '../../helpers/required-tools';

const BINDINGS = path.join(TERRAFORM_ROOT, 'modules/pullsecret-tenant-project/modules/bindings');
const identities = {
  job: 'pullsecret-job@platform-prod.iam.gserviceaccount.com',
  reporter: 'pullsecret-reporter@platform-prod.iam.gserviceaccount.com',
  reader: 'pullsecret-reader@platform-prod.iam.gserviceaccount.com',
};
const ORG_ROLE = 'organizations/123456789012/roles/pullsecret_pullSecretManager_a1b2c3';

interface Binding {
  role: string;
  member: string;
  title: string;
  expression: string;
}


describeWithTool('terraform', 'modules/pullsecret-tenant-project, applied offline', () => {
  let harness: TerraformModuleHarness;
  beforeAll(() => {
    harness = new TerraformModuleHarness(BINDINGS, ['scope', 'identities', 'job_role']);
  });
  afterAll(() => harness.dispose());

  const apply = (values: Record<string, unknown>) => harness.apply({ identities, job_role: ORG_ROLE, ...values });
  const bindingsOf = (outputs: Record<string, unknown>) => (outputs as { bindings: Record<string, Binding> }).bindings;

  it('onboards three projects with the same three conditional bindings each, the job on the one organization role', () => {
    const results = ['customer-a-12345', 'customer-b-12345', 'customer-c-12345'].map((project) => apply({ scope: { project } }));
    for (const result of results) {
      expect(result.diagnostics).toContain('Apply complete');
      expect(result.ok).toBe(true);
      const bindings = bindingsOf(result.outputs);
      expect(Object.keys(bindings).sort()).toEqual(['job', 'reader', 'reporter']);
      expect(bindings.job!.role).toBe(ORG_ROLE);
      expect(bindings.reporter!.role).toBe('roles/secretmanager.viewer');
      expect(bindings.reader!.role).toBe('roles/secretmanager.secretAccessor');
      expect(bindings.job!.member).toBe(`serviceAccount:${identities.job}`);
      // No project number in the condition: the same binding fits any project and a folder.
      expect(bindings.reader!.expression).toBe('resource.name.extract("/secrets/{id}").startsWith("hyperfleet-")');
      expect(bindings.job!.expression).toBe(`resource.type == "cloudresourcemanager.googleapis.com/Project" || ${bindings.reader!.expression}`);
    }
    expect(new Set(results.map((r) => JSON.stringify(bindingsOf(r.outputs)))).size).toBe(1);
  });

  it('onboards a folder (every project under it) with the organization role', () => {
    const result = apply({ scope: { folder: 'folders/998877665544' } });
    expect(result.ok).toBe(true);
    expect((result.outputs as { kind: string }).kind).toBe('folder');
  });

  it('refuses a folder with a project-level role, naming the module that makes the organization role', () => {
    const result = apply({ scope: { folder: 'folders/998877665544' }, job_role: 'projects/customer-a-12345/roles/pullsecret_x' });
    expect(result.ok).toBe(false);
    expect(result.diagnostics).toContain('scope.folder needs role_id');
    expect(result.diagnostics).toContain('pullsecret-tenant-role');
  });

  // Issue 39 item 5: a folder without role_id reaches modules/bindings as job_role = null (the
  // caller's one(...[*]) of a role that has count = 0), and gets the explanation, not an index error.
  it('refuses a folder without role_id (job_role null) with the same explanation', () => {
    const result = apply({ scope: { folder: 'folders/998877665544' }, job_role: null });
    expect(result.ok).toBe(false);
    expect(result.diagnostics).toContain('scope.folder needs role_id');
    expect(result.diagnostics).toContain('pullsecret-tenant-role');
    expect(result.diagnostics).not.toMatch(/Invalid index|may not be set to null/);
  });

  it.each([
    [{ scope: {} }, 'scope must set exactly one of project or folder'],
    [{ scope: { project: 'customer-a-12345', folder: 'folders/1' } }, 'scope must set exactly one of project or folder'],
    [{ scope: { folder: 'customer-folder' } }, 'scope.folder must be folders/NUMBER'],
    [{ scope: { project: 'Customer_A' } }, 'scope.project must be a project id'],
    [{ scope: { project: 'customer-a-12345' }, identities: { ...identities, job: 'job@example.com' } }, 'identities must be user-managed service account emails'],
    [{ scope: { project: 'customer-a-12345' }, job_role: 'roles/secretmanager.admin' }, 'role_id must be an organization custom role id'],
  ])('refuses %j with a clear message', (values, message) => {
    const result = apply(values);
    expect(result.ok).toBe(false);
    expect(result.diagnostics).toContain(message);
  });
});

describe('tenant onboarding, on the parsed modules', () => {
  let modules: TfModule[];
  beforeAll(async () => {
    modules = await loadModules();
  });

  it('creates the custom role once, at organization level, with exactly the calls the job makes', () => {
    const role = moduleAt(modules, 'modules/pullsecret-tenant-role');
    expect(role.resources.map((r) => r.type).sort()).toEqual(['google_organization_iam_custom_role', 'random_id']);
    const tenant = moduleAt(modules, 'modules/pullsecret-tenant-project');
    // The fallback project-level role holds the same list.
    expect(tenant.locals.permissions).toEqual(role.locals.permissions);
    expect(role.locals.permissions).toEqual([
      'secretmanager.secrets.create',
      'secretmanager.secrets.get',
      'secretmanager.secrets.update', // UpdateSecret: the claim annotations, the `current` alias (publish-version.ts), a tombstone's ttl
      'secretmanager.versions.access',
      'secretmanager.versions.add',
      'secretmanager.versions.destroy',
      'secretmanager.versions.disable',
      'secretmanager.versions.list',
    ]);
  });

  // The module itself needs the google provider, so it cannot run offline: its part is checked on
  // the parsed HCL. With scope.folder the project-level role has count = 0, so role_id must not be
  // read as secret_manager[0] (Terraform would stop at "Invalid index" before modules/bindings
  // explains); one(...[*]) gives null, which modules/bindings refuses with the message (above).
  it('passes null, never an index into the absent project-level role, for a folder without role_id', () => {
    const tenant = moduleAt(modules, 'modules/pullsecret-tenant-project');
    const roleId = String(tenant.locals.role_id);
    expect(roleId).not.toMatch(/secret_manager\[0\]/);
    expect(roleId).toContain('one(google_project_iam_custom_role.secret_manager[*].id)');
    const role = tenant.resources.find((r) => r.type === 'google_project_iam_custom_role' && r.name === 'secret_manager')!;
    expect(String(role.body.count)).toContain('local.project_scope && var.role_id == null');
    expect(tenant.modules.bindings!.job_role).toBe('${local.role_id}');
  });

  it('grants the CMEK key nowhere: the key owner does, outside any module, so destroy cannot break decryption', () => {
    for (const mod of modules) expect(mod.resources.filter((r) => r.type.startsWith('google_kms_'))).toEqual([]);
    const tenant = moduleAt(modules, 'modules/pullsecret-tenant-project');
    expect(Object.keys(tenant.outputs)).toContain('secret_manager_agent');
  });

  it('is what the example uses for its target projects, fed by the main module tenant_access output', () => {
    const example = moduleAt(modules, 'examples/basic');
    const call = example.modules.tenant_project!;
    expect(call.source).toBe('../../modules/pullsecret-tenant-project');
    expect(call.identities).toBe('${module.pullsecret_adapter.tenant_access}');
    expect(example.modules.pullsecret_adapter).not.toHaveProperty('target_project_ids');
  });
});
