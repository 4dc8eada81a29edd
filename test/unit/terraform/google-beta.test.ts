import path from 'node:path';
import {
  loadModules,
  loadProviderSchemas,
  TERRAFORM_ROOT,
  unknownNames,
  type TfBody,
  type TfModule,
} from '../../helpers/terraform';
import { configBlocks, providerOf, providerProblems } from '../../helpers/terraform-providers';

/** A module holding one resource, with the given required_providers. */
function moduleWith(
  type: string,
  body: TfBody,
  requiredProviders: TfModule['requiredProviders'] = {},
): TfModule {
  return {
    dir: path.join(TERRAFORM_ROOT, 'synthetic'),
    resources: [{ type, name: 'x', body }],
    data: [],
    variables: {},
    locals: {},
    modules: {},
    outputs: {},
    requiredProviders,
    strings: [],
    removed: [],
  };
}

const BETA = { 'google-beta': { source: 'hashicorp/google-beta', version: '~> 7.0' } };

describe('resources on google-beta', () => {
  const schemas = loadProviderSchemas();

  it('reads the provider meta-argument, aliases included, and defaults to the type prefix', () => {
    expect(providerOf('google_project_service_identity', { provider: '${google-beta}' })).toBe(
      'google-beta',
    );
    expect(
      providerOf('google_project_service_identity', { provider: '${google-beta.platform}' }),
    ).toBe('google-beta');
    expect(providerOf('google_project_service', {})).toBe('google');
    expect(providerOf('kubernetes_manifest', { provider: '${kubernetes.mc1}' })).toBe('kubernetes');
  });

  it('a type only google-beta has must set provider = google-beta', () => {
    expect(
      providerProblems(
        moduleWith('google_project_service_identity', { service: 'pubsub.googleapis.com' }, BETA),
        schemas,
      ),
    ).toEqual([
      'synthetic: google_project_service_identity.x: google_project_service_identity exists only in google-beta; set provider = google-beta',
    ]);
    expect(
      providerProblems(
        moduleWith(
          'google_project_service_identity',
          { provider: '${google-beta}', service: 'pubsub.googleapis.com' },
          BETA,
        ),
        schemas,
      ),
    ).toEqual([]);
  });

  it('a module using google-beta must declare it in required_providers', () => {
    expect(
      providerProblems(
        moduleWith('google_project_service_identity', { provider: '${google-beta}', service: 's' }),
        schemas,
      ),
    ).toEqual([
      "synthetic: google_project_service_identity.x: uses google-beta, which the module's required_providers (versions.tf) does not declare as hashicorp/google-beta",
    ]);
  });

  it('a block on google-beta is checked against the google-beta snapshot', () => {
    // check_if_service_has_usage_on_destroy is a beta-only argument of google_project_service.
    const body = { service: 'run.googleapis.com', check_if_service_has_usage_on_destroy: true };
    const [onGa] = configBlocks(moduleWith('google_project_service', body), schemas);
    const [onBeta] = configBlocks(
      moduleWith('google_project_service', { ...body, provider: '${google-beta}' }, BETA),
      schemas,
    );
    expect(unknownNames(onGa!.body, onGa!.schema!, onGa!.where)).toEqual([
      'synthetic: google_project_service.x: unknown argument or block "check_if_service_has_usage_on_destroy"',
    ]);
    expect(onBeta!.schema).toBe(schemas['google-beta']!.resources.google_project_service);
    expect(unknownNames(onBeta!.body, onBeta!.schema!, onBeta!.where)).toEqual([]);
  });

  it('the modules pick their google provider as these rules require', async () => {
    const modules = await loadModules();
    expect(modules.flatMap((m) => providerProblems(m, schemas))).toEqual([]);
  });
});
