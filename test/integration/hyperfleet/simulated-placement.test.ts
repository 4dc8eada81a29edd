// The local stack's simulated placement adapter on the HyperFleet API emulator: clusters spread
// over the management clusters by id, `data.namespace`, and the /_emulator/simulated-data override
// that a test uses to move a cluster at its next generation.
import {
  localSimulatedAdapters,
  spreadOver,
} from '../../../emulators/pullsecret/hyperfleet/simulated-adapters';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import { readySpec } from '../../helpers/hyperfleet';

const CLUSTERS = ['mgmt-1', 'mgmt-2'];

describe('HyperFleet API emulator: simulated placement over several management clusters', () => {
  let emulator: HyperFleetApiEmulator;
  beforeAll(async () => {
    emulator = await startHyperFleetApiEmulator({
      simulatedAdapters: localSimulatedAdapters(CLUSTERS),
    });
  });
  afterAll(() => emulator.stop());

  const create = (name: string, id?: string) =>
    (
      emulator.store.createCluster(
        { kind: 'Cluster', name, spec: readySpec(), ...(id ? { id } : {}) },
        't@example.com',
      ) as { id: string }
    ).id;
  const placement = async (id: string) => {
    const response = await fetch(`${emulator.baseUrl}/api/hyperfleet/v1/clusters/${id}/statuses`);
    const list = (await response.json()) as {
      items: { adapter: string; observed_generation: number; data?: Record<string, unknown> }[];
    };
    return list.items.find((s) => s.adapter === 'placement');
  };
  const admin = (body: unknown) =>
    fetch(`${emulator.baseUrl}/_emulator/simulated-data`, {
      method: 'POST',
      body: JSON.stringify(body),
    });

  it('reports data.managementCluster (spread by id) and data.namespace at every generation', async () => {
    const ids = ['a1', 'b2', 'c3', 'd4', 'e5', 'f6'].map((suffix, i) =>
      create(`spread-${i}`, `0190a1b2-c3d4-7e5f-8a9b-0000000000${suffix}`),
    );
    for (const id of ids)
      expect((await placement(id))?.data).toEqual({
        managementCluster: spreadOver(CLUSTERS, id),
        namespace: `clusters-${id}`,
      });
    expect(new Set(ids.map((id) => spreadOver(CLUSTERS, id)))).toEqual(new Set(CLUSTERS));
  });

  it('an override applies from creation, or from the next generation of an existing cluster', async () => {
    expect(
      (
        await admin({
          cluster_name: 'unknown-mgmt',
          adapter: 'placement',
          data: { managementCluster: 'mgmt-9' },
        })
      ).status,
    ).toBe(201);
    const unknown = create('unknown-mgmt');
    expect((await placement(unknown))?.data).toEqual({
      managementCluster: 'mgmt-9',
      namespace: `clusters-${unknown}`,
    });

    const id = create('moving');
    const before = (await placement(id))?.data?.managementCluster;
    const other = CLUSTERS.find((c) => c !== before)!;
    await admin({
      cluster_name: 'moving',
      adapter: 'placement',
      data: { managementCluster: other },
    });
    expect((await placement(id))?.data?.managementCluster).toBe(before);
    emulator.store.patchCluster(id, { labels: { moved: 'yes' } }, 't@example.com');
    expect(await placement(id)).toMatchObject({
      observed_generation: 2,
      data: { managementCluster: other, namespace: `clusters-${id}` },
    });
  });

  it('refuses a malformed override', async () => {
    expect(
      (await admin({ cluster_name: 'x', adapter: 'Not Valid', data: {} })).status,
    ).toBeGreaterThanOrEqual(400);
    expect((await admin({ adapter: 'placement', data: {} })).status).toBeGreaterThanOrEqual(400);
  });
});
