import { demoClusterSpec } from '../../emulators/pullsecret/stack/demo';
import { DEFAULT_LAYOUT, type NamespaceLayout } from '../../shared/pull-secret/namespace-layout';
import { canaryPullSecret, type Canary } from '../helpers/canary';
import { scanForCanaries } from '../helpers/secret-scan';
import { CUSTOMER_PROJECT, idOn, startTestStack, type TestStack } from '../helpers/stack';

/**
 * The operator's namespace layout on a running fleet (docs/operations.md, "Changing the namespace
 * layout"): two clusters on two management clusters in seed 000's `clusters-{id}` move to seed
 * 004's one shared namespace `clusters` in the documented two applies, while a watcher checks
 * that every HostedCluster's `spec.pullSecret` names a Secret that exists beside it, all along.
 * Then, in the shared layout: a new cluster, a hostile placement, and the fence as the job sees it.
 * (Every other scenario runs in the shared layout too: CI runs the e2e suite a second time with
 * MANAGEMENT_NAMESPACE_TEMPLATE=clusters.)
 */
const SHARED = 'clusters';
const KEEP: NamespaceLayout = {
  template: SHARED,
  migration: { previous: 'clusters-{id}', phase: 'keep-previous' },
};
const REMOVE: NamespaceLayout = {
  template: SHARED,
  migration: { previous: 'clusters-{id}', phase: 'remove-previous' },
};

describe('end to end on the local stack: the namespace layout and its migration', () => {
  let stack: TestStack;
  const canaries: Canary[] = [];
  const fleet = [
    { id: idOn('mgmt-1'), name: 'e2e-layout-1', on: 'mgmt-1' },
    { id: idOn('mgmt-2'), name: 'e2e-layout-2', on: 'mgmt-2' },
  ];

  beforeAll(async () => {
    // Seed 000's layout to start from, whatever MANAGEMENT_NAMESPACE_TEMPLATE says.
    stack = await startTestStack({ namespaceLayout: DEFAULT_LAYOUT });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  const create = async (name: string, id: string) => {
    const canary = canaryPullSecret(name);
    canaries.push(canary);
    await stack.api.createCluster({
      name,
      id,
      spec: demoClusterSpec(canary.text, CUSTOMER_PROJECT),
    });
    return canary;
  };
  const ownData = async (id: string) =>
    (await stack.api.listStatuses(id)).find((s) => s.adapter === 'pullsecret')?.data ?? {};
  /** Where each HostedCluster of the cluster is and which Secret it names. */
  const hostedAt = async (id: string) =>
    (await stack.hostedClusters(id)).map((h) => {
      const object = h.object as {
        metadata: { namespace: string };
        spec: { pullSecret: { name: string } };
      };
      return {
        managementCluster: h.managementCluster,
        namespace: object.metadata.namespace,
        secret: object.spec.pullSecret.name,
      };
    });

  /**
   * Checks, as often as it can, that every HostedCluster of the fleet names a Secret that exists
   * in its own namespace on its own management cluster: HyperShift's reference never points at
   * nothing. Returns what it saw missing, and how many checks it made.
   */
  const watchReferences = () => {
    const missing: string[] = [];
    let checks = 0;
    let running = true;
    const loop = (async () => {
      while (running) {
        for (const { id } of fleet)
          for (const hosted of await hostedAt(id)) {
            const secret = await stack.kubes
              .get(hosted.managementCluster)!
              .get(`/api/v1/namespaces/${hosted.namespace}/secrets/${hosted.secret}`);
            if (!secret)
              missing.push(`${hosted.managementCluster} ${hosted.namespace}/${hosted.secret}`);
          }
        checks += 1;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    return {
      stop: async () => {
        running = false;
        await loop;
        return { missing, checks };
      },
    };
  };

  it('starts in clusters-{id}: each Secret and HostedCluster in the cluster’s own namespace', async () => {
    for (const { id, name } of fleet) await create(name, id);
    for (const { id } of fleet) await stack.ready(id);
    for (const { id, on } of fleet) {
      expect(await stack.ourSecrets(id)).toEqual([`${on} clusters-${id}/${id}-pull-secret`]);
      expect(await hostedAt(id)).toEqual([
        { managementCluster: on, namespace: `clusters-${id}`, secret: `${id}-pull-secret` },
      ]);
    }
  });

  it('moves the fleet to the shared namespace in two applies, the HostedClusters never pointing at nothing', async () => {
    const watcher = watchReferences();
    try {
      // The operator creates the shared namespace where HyperShift will use it (docs/operations.md).
      for (const kube of stack.kubes.values()) await kube.ensureNamespace(SHARED);

      // Apply 1, keep-previous: each cluster's next event launches the move; the copy in the
      // previous layout stays, and the status says so; HyperShift follows the status.
      await stack.relayout(KEEP);
      for (const { id, on } of fleet)
        await stack.waitFor(
          `cluster ${id} written to ${SHARED} and its HostedCluster moved`,
          async () => {
            const data = await ownData(id);
            const hosted = await hostedAt(id);
            return (
              data.namespace === SHARED &&
              data.previous_layout_namespace === `clusters-${id}` &&
              hosted.length === 1 &&
              hosted[0]!.namespace === SHARED &&
              hosted[0]!.managementCluster === on
            );
          },
          60_000,
        );
      for (const { id, on } of fleet)
        expect((await stack.ourSecrets(id)).sort()).toEqual(
          [`${on} ${SHARED}/${id}-pull-secret`, `${on} clusters-${id}/${id}-pull-secret`].sort(),
        );

      // Apply 2, remove-previous: the copies the first phase kept are removed.
      await stack.relayout(REMOVE);
      for (const { id, on } of fleet)
        await stack.waitFor(
          `cluster ${id}'s copy in clusters-${id} removed`,
          async () => {
            const data = await ownData(id);
            const secrets = await stack.ourSecrets(id);
            return (
              data.previous_layout_namespace === undefined &&
              secrets.length === 1 &&
              secrets[0] === `${on} ${SHARED}/${id}-pull-secret`
            );
          },
          60_000,
        );

      // The migration ends: the layout alone.
      await stack.relayout({ template: SHARED });
    } finally {
      const { missing, checks } = await watcher.stop();
      expect(missing).toEqual([]);
      expect(checks).toBeGreaterThan(20);
    }
    for (const { id, on } of fleet) {
      expect(await ownData(id)).toMatchObject({
        namespace: SHARED,
        pull_secret_name: `${id}-pull-secret`,
        kubernetes_secret: { management_cluster: on, namespace: SHARED },
      });
      await stack.ready(id);
    }
  }, 180_000);

  it('after the migration the fence admits the job only in the shared namespace, and only its own Secret', async () => {
    const { id, on } = fleet[0]!;
    const kube = stack.kubes.get(on)!;
    const jobToken = await stack.jobToken();
    const secret = (namespace: string, name: string, clusterId: string) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name,
        namespace,
        labels: { 'managed-by': 'hyperfleet', adapter: 'pullsecret', 'cluster-id': clusterId },
      },
      type: 'kubernetes.io/dockerconfigjson',
      data: { '.dockerconfigjson': Buffer.from('{"auths":{}}').toString('base64') },
    });
    const post = (namespace: string, name: string, clusterId: string) =>
      kube.request(
        'POST',
        `/api/v1/namespaces/${namespace}/secrets`,
        secret(namespace, name, clusterId),
        jobToken,
      );
    // The per-cluster namespace is no longer a place for it, even for its own cluster.
    const old = await post(`clusters-${id}`, `${id}-pull-secret`, id);
    expect(old.status).toBe(403);
    expect(old.body).toContain(
      'the pull secret job may only write the Secret CLUSTER-pull-secret in namespace clusters,',
    );
    // Another cluster's name in the shared namespace, under this cluster's label.
    const other = fleet[1]!.id;
    expect((await post(SHARED, `${other}-pull-secret`, id)).status).toBe(403);
  });

  it('a new cluster in the shared layout: its Secret and HostedCluster in clusters; a hostile placement cannot move the write', async () => {
    const id = idOn('mgmt-1');
    const name = 'e2e-layout-new';
    await create(name, id);
    await stack.ready(id);
    expect(await stack.ourSecrets(id)).toEqual([`mgmt-1 ${SHARED}/${id}-pull-secret`]);
    expect(await hostedAt(id)).toEqual([
      { managementCluster: 'mgmt-1', namespace: SHARED, secret: `${id}-pull-secret` },
    ]);

    // Placement (another adapter's data) names a system namespace at the next generation.
    const generation = await stack.move(id, { namespace: 'kube-system' });
    await stack.waitFor(`cluster ${id} refused for the forged namespace`, async () => {
      const own = (await stack.api.listStatuses(id)).find((s) => s.adapter === 'pullsecret');
      const refused = own?.conditions.find((c) => c.reason === 'InvalidManagementNamespace');
      return own?.observed_generation === generation ? refused : undefined;
    });
    expect(await stack.secretIn('mgmt-1', 'kube-system', id)).toBeUndefined();
    expect(await stack.ourSecrets(id)).toEqual([`mgmt-1 ${SHARED}/${id}-pull-secret`]);
  });

  it('no pull secret in any log, status, message or state file', async () => {
    expect(await scanForCanaries(stack, canaries)).toEqual([]);
  });
});
