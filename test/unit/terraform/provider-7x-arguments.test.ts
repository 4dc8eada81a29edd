import { loadProviderSchemas, unknownNames } from '../../helpers/terraform';

// Arguments the 6.x provider took and 7.0 no longer does (docs/guides/version_7_upgrade in the
// provider): the snapshot must be 7.x for the offline check to catch them.
describe('the offline check against the 7.x google provider', () => {
  const functionSchema = loadProviderSchemas().google!.resources.google_cloudfunctions2_function!;
  const minimalFunction = {
    name: 'adapter',
    location: 'us-central1',
    build_config: [{ runtime: 'nodejs22', entry_point: 'handle' }],
  };

  it('reports service_config.service, which 7.0 made output-only on google_cloudfunctions2_function', () => {
    const body = {
      ...minimalFunction,
      service_config: [
        { service: 'projects/p/locations/us-central1/services/s', available_memory: '256M' },
      ],
    };
    expect(unknownNames(body, functionSchema, 'fn')).toEqual([
      'fn.service_config: "service" is read-only (set by the provider, not configurable)',
    ]);
    expect(
      unknownNames(
        { ...minimalFunction, service_config: [{ available_memory: '256M' }] },
        functionSchema,
        'fn',
      ),
    ).toEqual([]);
  });

  it('reports a made-up argument, at the top and in a nested block', () => {
    const body = {
      ...minimalFunction,
      autoscale: true,
      build_config: [{ runtime: 'nodejs22', cache_layers: true }],
    };
    expect(unknownNames(body, functionSchema, 'fn')).toEqual([
      'fn.build_config: unknown argument or block "cache_layers"',
      'fn: unknown argument or block "autoscale"',
    ]);
  });
});
