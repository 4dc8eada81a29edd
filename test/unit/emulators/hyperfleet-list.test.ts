import { HyperFleetStore, type ListQuery } from '../../../emulators/hyperfleet-api/store';

type Listed = { id: string; name: string; status: { conditions: { type: string }[] } };
const page = (store: HyperFleetStore, query: Partial<ListQuery> = {}) =>
  store.listClusters({ page: 1, size: 100, search: null, order: null, ...query }) as {
    total: number;
    items: Listed[];
  };
const names = (store: HyperFleetStore, query: Partial<ListQuery> = {}) =>
  page(store, query).items.map((c) => c.name);

describe('HyperFleet emulator: listing stays right while it is cached', () => {
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const store = () =>
    new HyperFleetStore({ requiredAdapters: ['pullsecret'], now: () => new Date((clock += 1000)) });
  const create = (s: HyperFleetStore, name: string) =>
    (s.createCluster({ kind: 'Cluster', name, spec: {} }, 'test') as { id: string }).id;

  it('shows clusters created, changed and removed after an earlier listing', () => {
    const s = store();
    const a = create(s, 'alpha');
    create(s, 'bravo');
    expect(names(s)).toEqual(['alpha', 'bravo']);
    create(s, 'charlie');
    expect(page(s).total).toBe(3);
    expect(names(s, { order: 'updated_time desc' })).toEqual(['charlie', 'bravo', 'alpha']);
    s.patchCluster(a, { spec: { changed: true } }, 'test');
    expect(names(s, { order: 'updated_time desc' })).toEqual(['alpha', 'charlie', 'bravo']);
    s.forceDelete(a, 'test cleanup');
    expect(names(s)).toEqual(['bravo', 'charlie']);
  });

  it('filters on conditions as they are now, not as when the search was first answered', () => {
    const s = store();
    const a = create(s, 'alpha');
    create(s, 'bravo');
    const search = "status.conditions.Reconciled='True'";
    expect(names(s, { search })).toEqual([]);
    s.reportAdapter(a, 'pullsecret', { available: 'True' });
    expect(names(s, { search })).toEqual(['alpha']);
    expect(
      page(s)
        .items.find((c) => c.id === a)
        ?.status.conditions.map((c) => c.type),
    ).toContain('PullsecretSuccessful');
  });

  it('hands out copies: changing a listed cluster does not change the store', () => {
    const s = store();
    const a = create(s, 'alpha');
    page(s).items[0]!.name = 'mutated';
    (s.getCluster(a) as { name: string }).name = 'mutated too';
    expect(names(s)).toEqual(['alpha']);
    expect(s.getClusterJson(a)).toContain('"name":"alpha"');
  });

  it('keeps names unique while a cluster exists and frees the name when it is gone', () => {
    const s = store();
    const a = create(s, 'alpha');
    expect(() => create(s, 'alpha')).toThrow(/name 'alpha' is taken/);
    s.forceDelete(a, 'test cleanup');
    expect(() => create(s, 'alpha')).not.toThrow();
  });

  it('refuses a bad search even after good ones were answered', () => {
    const s = store();
    create(s, 'alpha');
    names(s, { search: "name='alpha'" });
    expect(() => names(s, { search: "nosuchfield='x'" })).toThrow(/Unsupported search field/);
  });
});
