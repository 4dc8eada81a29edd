import { adapterStatusSchema, clusterSchema } from '../../../shared/hyperfleet/schemas';

describe('HyperFleet API answers: JSON null where the Go API marshals a nil map or pointer', () => {
  it('reads null data, metadata, conditions and condition fields of an adapter status as absent', () => {
    expect(
      adapterStatusSchema.parse({
        adapter: 'validation',
        observed_generation: 1,
        conditions: [{ type: 'Available', status: 'True', reason: null, message: null }],
        data: null,
        metadata: null,
      }),
    ).toEqual({
      adapter: 'validation',
      observed_generation: 1,
      conditions: [{ type: 'Available', status: 'True' }],
    });
    expect(
      adapterStatusSchema.parse({ adapter: 'dns', observed_generation: 2, conditions: null })
        .conditions,
    ).toEqual([]);
  });

  it('reads null labels, href, kind and status conditions of a cluster as absent', () => {
    expect(
      clusterSchema.parse({
        id: 'c1',
        kind: null,
        name: 'one',
        href: null,
        labels: null,
        generation: 1,
        spec: {},
        deleted_time: null,
        status: { conditions: null },
      }),
    ).toEqual({
      id: 'c1',
      name: 'one',
      generation: 1,
      spec: {},
      deleted_time: null,
      status: { conditions: [] },
    });
  });

  it('still refuses a wrong type, naming the field', () => {
    const parsed = clusterSchema.safeParse({ id: 'c1', name: 'one', generation: '1', spec: {} });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['generation']);
  });
});
