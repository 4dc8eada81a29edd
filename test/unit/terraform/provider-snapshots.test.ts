import { loadModules, loadProviderSchemas, type TfModule } from '../../helpers/terraform';
import { configBlocks, snapshotSource } from '../../helpers/terraform-providers';

// The google and google-beta snapshots are read from the Go source of one provider release by
// scripts/terraform-schema-snapshot.cjs; these tests keep them honest about what they are.
describe('the google and google-beta schema snapshots', () => {
  const schemas = loadProviderSchemas();
  let modules: TfModule[];

  beforeAll(async () => {
    modules = await loadModules();
  });

  it.each(['google', 'google-beta'])(
    '%s records a 7.x release, the tag and commit it was read from, and the command that regenerates it',
    (name) => {
      const schema = schemas[name]!;
      const source = snapshotSource(schema);
      expect(schema.provider).toEqual({
        name: `registry.terraform.io/hashicorp/${name}`,
        version: expect.stringMatching(/^7\.\d+\.\d+$/),
      });
      expect(source.repository).toBe(`https://github.com/hashicorp/terraform-provider-${name}`);
      expect(source.tag).toBe(`v${schema.provider.version}`);
      expect(source.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(source.generated_by).toMatch(/^node scripts\/terraform-schema-snapshot\.cjs /);
    },
  );

  it('is the major version every module pins', () => {
    const constraints = modules.flatMap((m) =>
      ['google', 'google-beta']
        .filter((name) => m.requiredProviders[name])
        .map((name) => [name, String(m.requiredProviders[name]!.version)] as const),
    );
    expect(constraints.length).toBeGreaterThan(0);
    for (const [name, constraint] of constraints) {
      const major = schemas[name]!.provider.version!.split('.')[0];
      expect(constraint).toMatch(new RegExp(`^~>\\s*${major}\\.`));
    }
  });

  it('has every google_ type the modules use, in the provider each block uses', () => {
    const command = snapshotSource(schemas.google!).generated_by;
    const missing = modules
      .flatMap((m) => configBlocks(m, schemas))
      .filter((b) => b.type.startsWith('google_') && !b.schema)
      .filter(
        (b) => !(b.provider === 'google' && schemas.google!.beta_only?.[b.kind].includes(b.type)),
      )
      .map(
        (b) =>
          `${b.where}: ${b.type} is not in terraform/schema/${b.provider}-provider.schema.json; regenerate it with ${command}`,
      );
    expect(missing).toEqual([]);
  });

  it('snapshots the same types in both providers, and names those only google-beta has', () => {
    const [ga, beta] = [schemas.google!, schemas['google-beta']!];
    for (const kind of ['resources', 'data_sources'] as const) {
      const gaTypes = Object.keys(ga[kind]);
      expect(Object.keys(beta[kind]).sort()).toEqual([...gaTypes, ...ga.beta_only![kind]].sort());
    }
    expect(ga.beta_only!.resources).toContain('google_project_service_identity');
    expect(beta.resources.google_project_service_identity!.attribute_details!.service).toEqual({
      type: 'string',
      required: true,
    });
  });
});
