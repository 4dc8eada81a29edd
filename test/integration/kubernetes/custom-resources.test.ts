import * as k8s from '@kubernetes/client-node';
import fs from 'node:fs';
import { crdFixturePath } from '../../../emulators/pullsecret/management-cluster/hosted-cluster-crd';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import { failureOf } from '../../helpers/kubernetes';
import { apisFor, request } from './kube-clients';

/**
 * CustomResourceDefinitions in the Kubernetes emulator, with real client-node clients: the CRD's
 * established status, discovery, CRUD/list/watch of the kinds it registers (namespaced and
 * cluster scope), the status subresource, schema validation (422 with field paths), pruning,
 * RBAC, and removal with the CRD.
 */
const GROUP = 'hypershift.openshift.io';
const VERSION = 'v1beta1';
const NS = 'clusters-crd';
const MERGE_PATCH = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

const hostedCluster = (
  name: string,
  spec: Record<string, unknown> = {},
  labels: Record<string, string> = {},
) => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: 'HostedCluster',
  metadata: { name, labels },
  spec: {
    pullSecret: { name: `${name}-pull-secret` },
    release: { image: 'quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64' },
    platform: { type: 'None' },
    ...spec,
  },
});
type Custom = {
  metadata: k8s.V1ObjectMeta;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
} & Record<string, unknown>;

describe('custom resources in the Kubernetes emulator', () => {
  let emulator: KubeApiServerEmulator;
  let admin: ReturnType<typeof apisFor>;
  const hc = { group: GROUP, version: VERSION, namespace: NS, plural: 'hostedclusters' };

  beforeAll(async () => {
    emulator = await startKubeApiServerEmulator({ namespaces: [NS] });
    admin = apisFor(emulator);
    // Through the YAML loader: client-node's models name some schema fields differently
    // (`_enum`, `xKubernetesPreserveUnknownFields`), so a plain object would lose them.
    await admin.extensions.createCustomResourceDefinition({
      body: k8s.loadYaml<k8s.V1CustomResourceDefinition>(
        fs.readFileSync(crdFixturePath('hostedcluster'), 'utf8'),
      ),
    });
  });
  afterAll(() => emulator.stop());

  it('establishes the CRD at once, with the conditions and accepted names the real server sets', async () => {
    const crd = await admin.extensions.readCustomResourceDefinition({
      name: `hostedclusters.${GROUP}`,
    });
    const conditions = Object.fromEntries((crd.status?.conditions ?? []).map((c) => [c.type, c]));
    expect(conditions.NamesAccepted).toMatchObject({ status: 'True', reason: 'NoConflicts' });
    expect(conditions.Established).toMatchObject({
      status: 'True',
      reason: 'InitialNamesAccepted',
    });
    expect(crd.status?.acceptedNames).toMatchObject({
      kind: 'HostedCluster',
      plural: 'hostedclusters',
      shortNames: ['hc', 'hcs'],
    });
    expect(crd.status?.storedVersions).toEqual([VERSION]);
    const list = await admin.extensions.listCustomResourceDefinition();
    expect(list.items.map((c) => c.metadata?.name)).toEqual([`hostedclusters.${GROUP}`]);
  });

  it('serves the registered kind in discovery (group list, group, resource list with short names)', async () => {
    const groups = (await request(emulator, 'GET', '/apis')).body as {
      groups: { name: string; preferredVersion: { version: string } }[];
    };
    expect(groups.groups.find((g) => g.name === GROUP)?.preferredVersion.version).toBe(VERSION);
    const resources = (await request(emulator, 'GET', `/apis/${GROUP}/${VERSION}`)).body as {
      resources: Record<string, unknown>[];
    };
    expect(resources.resources).toEqual([
      expect.objectContaining({
        name: 'hostedclusters',
        namespaced: true,
        kind: 'HostedCluster',
        shortNames: ['hc', 'hcs'],
        verbs: expect.arrayContaining(['watch', 'patch']),
      }),
      expect.objectContaining({ name: 'hostedclusters/status', verbs: ['get', 'patch', 'update'] }),
    ]);
  });

  it('creates, reads, lists by label, replaces, merge-patches and deletes a HostedCluster', async () => {
    const created = (await admin.custom.createNamespacedCustomObject({
      ...hc,
      body: hostedCluster('one', {}, { tier: 'gold' }),
    })) as Custom;
    expect(created.metadata).toMatchObject({ name: 'one', namespace: NS, generation: 1 });
    await admin.custom.createNamespacedCustomObject({
      ...hc,
      body: hostedCluster('two', {}, { tier: 'silver' }),
    });
    const gold = (await admin.custom.listNamespacedCustomObject({
      ...hc,
      labelSelector: 'tier=gold',
    })) as { kind: string; items: Custom[] };
    expect(gold.kind).toBe('HostedClusterList');
    expect(gold.items.map((i) => i.metadata.name)).toEqual(['one']);
    const all = (await admin.custom.listClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'hostedclusters',
    })) as { items: Custom[] };
    expect(all.items.map((i) => i.metadata.name).sort()).toEqual(['one', 'two']);

    const read = (await admin.custom.getNamespacedCustomObject({ ...hc, name: 'one' })) as Custom;
    const replaced = (await admin.custom.replaceNamespacedCustomObject({
      ...hc,
      name: 'one',
      body: { ...read, spec: { ...read.spec, channel: 'stable-4.17' } },
    })) as Custom;
    expect(replaced.metadata.generation).toBe(2);
    const patched = (await admin.custom.patchNamespacedCustomObject(
      { ...hc, name: 'one', body: { metadata: { labels: { tier: 'bronze' } } } },
      MERGE_PATCH,
    )) as Custom;
    expect(patched.metadata.labels).toEqual({ tier: 'bronze' });
    expect(patched.metadata.generation).toBe(2); // metadata changes are not a new generation

    await admin.custom.deleteNamespacedCustomObject({ ...hc, name: 'two' });
    expect(
      await failureOf(admin.custom.getNamespacedCustomObject({ ...hc, name: 'two' })),
    ).toMatchObject({
      code: 404,
      message: `hostedclusters.${GROUP} "two" not found`,
    });
  });

  it('keeps status to the /status subresource', async () => {
    await admin.custom.createNamespacedCustomObject({
      ...hc,
      body: { ...hostedCluster('st'), status: { version: { desired: 'ignored' } } },
    });
    const withStatus = (await admin.custom.patchNamespacedCustomObjectStatus(
      {
        ...hc,
        name: 'st',
        body: {
          status: { conditions: [{ type: 'Available', status: 'True' }] },
          spec: { channel: 'ignored' },
        },
      },
      MERGE_PATCH,
    )) as Custom;
    expect(withStatus.status).toEqual({ conditions: [{ type: 'Available', status: 'True' }] });
    expect(withStatus.spec?.channel).toBeUndefined();
    const main = (await admin.custom.patchNamespacedCustomObject(
      { ...hc, name: 'st', body: { status: { conditions: [] } } },
      MERGE_PATCH,
    )) as Custom;
    expect(main.status).toEqual({ conditions: [{ type: 'Available', status: 'True' }] });
  });

  it('refuses what the schema refuses: 422 Invalid with field paths worded as the real server words them', async () => {
    const failure = await failureOf(
      admin.custom.createNamespacedCustomObject({
        ...hc,
        body: hostedCluster('bad', {
          pullSecret: {},
          release: { image: 42 },
          platform: { type: 'Mars' },
        }),
      }),
    );
    expect(failure).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(failure.message).toBe(
      `HostedCluster.${GROUP} "bad" is invalid: [spec.pullSecret.name: Required value, spec.release.image: Invalid value: "integer": spec.release.image in body must be of type string: "integer", spec.platform.type: Unsupported value: "Mars": supported values: "AWS", "Azure", "IBMCloud", "KubeVirt", "Agent", "PowerVS", "None", "OpenStack", "GCP"]`,
    );
    expect(failure.details?.causes?.map((c) => c.field)).toEqual([
      'spec.pullSecret.name',
      'spec.release.image',
      'spec.platform.type',
    ]);
    const missing = await failureOf(
      admin.custom.createNamespacedCustomObject({
        ...hc,
        body: { ...hostedCluster('nospec'), spec: { platform: { type: 'None' } } },
      }),
    );
    expect(missing.details?.causes?.map((c) => c.field)).toEqual([
      'spec.pullSecret',
      'spec.release',
    ]);
  });

  it('prunes unknown fields, or refuses them with fieldValidation=Strict (400)', async () => {
    const created = (await admin.custom.createNamespacedCustomObject({
      ...hc,
      body: {
        ...hostedCluster('pruned', { pullSecret: { name: 'ps', extra: 'x' } }),
        unknownTop: true,
      },
    })) as Custom;
    expect(created.unknownTop).toBeUndefined();
    expect(created.spec?.pullSecret).toEqual({ name: 'ps' });
    const strict = await failureOf(
      admin.custom.createNamespacedCustomObject({
        ...hc,
        fieldValidation: 'Strict',
        body: { ...hostedCluster('strict'), unknownTop: true },
      }),
    );
    expect(strict).toMatchObject({
      code: 400,
      message: 'strict decoding error: unknown field "unknownTop"',
    });
  });

  it('checks apiVersion, kind and namespace as the real server does', async () => {
    expect(
      await failureOf(
        admin.custom.createNamespacedCustomObject({
          ...hc,
          body: { ...hostedCluster('k'), kind: 'NodePool' },
        }),
      ),
    ).toMatchObject({
      code: 400,
      message: 'the kind in the data (NodePool) does not match the expected kind (HostedCluster)',
    });
    expect(
      await failureOf(
        admin.custom.createNamespacedCustomObject({
          ...hc,
          namespace: 'nowhere',
          body: hostedCluster('n'),
        }),
      ),
    ).toMatchObject({ code: 404, message: 'namespaces "nowhere" not found' });
    expect(
      await failureOf(
        admin.custom.createNamespacedCustomObject({
          ...hc,
          plural: 'nodepools',
          body: hostedCluster('n'),
        }),
      ),
    ).toMatchObject({ code: 404 });
  });

  it('watches: ADDED, MODIFIED and DELETED events for the namespace', async () => {
    const events: string[] = [];
    const watch = new k8s.Watch(admin.config);
    const list = (await admin.custom.listNamespacedCustomObject({ ...hc })) as {
      metadata: { resourceVersion: string };
    };
    const request = await watch.watch(
      `/apis/${GROUP}/${VERSION}/namespaces/${NS}/hostedclusters`,
      { resourceVersion: list.metadata.resourceVersion },
      (type, object: Custom) => events.push(`${type} ${object.metadata.name}`),
      () => undefined,
    );
    await admin.custom.createNamespacedCustomObject({ ...hc, body: hostedCluster('watched') });
    await admin.custom.patchNamespacedCustomObject(
      { ...hc, name: 'watched', body: { spec: { channel: 'fast' } } },
      MERGE_PATCH,
    );
    await admin.custom.deleteNamespacedCustomObject({ ...hc, name: 'watched' });
    for (let i = 0; i < 50 && events.length < 3; i++) await new Promise((r) => setTimeout(r, 20));
    request.abort();
    expect(events).toEqual(['ADDED watched', 'MODIFIED watched', 'DELETED watched']);
  });

  it('applies RBAC to custom resources as to Secrets', async () => {
    emulator.grant({
      'reader-token-000000': {
        user: 'reader',
        rules: [{ resources: ['hostedclusters'], verbs: ['get', 'list'], namespaces: [NS] }],
      },
    });
    const reader = apisFor(emulator, 'reader-token-000000');
    await reader.custom.listNamespacedCustomObject({ ...hc });
    expect(
      await failureOf(
        reader.custom.createNamespacedCustomObject({ ...hc, body: hostedCluster('r') }),
      ),
    ).toMatchObject({
      code: 403,
      message: `hostedclusters.${GROUP} is forbidden: User "reader" cannot create resource "hostedclusters" in API group "${GROUP}" in the namespace "${NS}"`,
    });
  });

  it('serves cluster-scoped kinds, validates the CRD, and removes the kind with its CRD', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'regions.example.hyperfleet.io' },
      spec: {
        group: 'example.hyperfleet.io',
        scope: 'Cluster',
        names: { plural: 'regions', kind: 'Region' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', properties: { zone: { type: 'string' } } } },
              },
            },
          },
        ],
      },
    } as unknown as k8s.V1CustomResourceDefinition;
    const wrongName = await failureOf(
      admin.extensions.createCustomResourceDefinition({
        body: { ...crd, metadata: { name: 'regions' } },
      }),
    );
    expect(wrongName).toMatchObject({
      code: 422,
      message: `CustomResourceDefinition.apiextensions.k8s.io "regions" is invalid: metadata.name: Invalid value: "regions": must be spec.names.plural+"."+spec.group`,
    });
    await admin.extensions.createCustomResourceDefinition({ body: crd });
    const region = { group: 'example.hyperfleet.io', version: 'v1', plural: 'regions' };
    await admin.custom.createClusterCustomObject({
      ...region,
      body: {
        apiVersion: 'example.hyperfleet.io/v1',
        kind: 'Region',
        metadata: { name: 'eu' },
        spec: { zone: 'b' },
      },
    });
    const eu = (await admin.custom.getClusterCustomObject({ ...region, name: 'eu' })) as Custom;
    expect(eu.metadata.namespace).toBeUndefined();
    await admin.extensions.deleteCustomResourceDefinition({
      name: 'regions.example.hyperfleet.io',
    });
    expect(
      (await request(emulator, 'GET', '/apis/example.hyperfleet.io/v1/regions/eu')).status,
    ).toBe(404);
    expect((await request(emulator, 'GET', '/apis/example.hyperfleet.io/v1')).status).toBe(404);
  });
});

describe('seeding /apis objects at start', () => {
  it('creates the CRD, a custom resource and the fence in order, through the API rules', async () => {
    const { loadCrdFixture } =
      await import('../../../emulators/pullsecret/management-cluster/hosted-cluster-crd');
    const { renderFencePolicy } =
      await import('../../../emulators/pullsecret/management-cluster/fence-policy');
    const seeded = await startKubeApiServerEmulator({
      namespaces: ['clusters-seed'],
      resources: [
        loadCrdFixture('hostedcluster'),
        { ...hostedCluster('seeded'), metadata: { name: 'seeded', namespace: 'clusters-seed' } },
        ...renderFencePolicy('job@p.iam.gserviceaccount.com'),
      ],
    });
    try {
      const api = apisFor(seeded);
      const hc = (await api.custom.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: 'clusters-seed',
        plural: 'hostedclusters',
        name: 'seeded',
      })) as Custom;
      expect(hc.metadata.generation).toBe(1);
      const bindings = await api.admission.listValidatingAdmissionPolicyBinding();
      expect(bindings.items.map((b) => b.metadata?.name)).toEqual(['hyperfleet-pullsecret-fence']);
    } finally {
      await seeded.stop();
    }
    await expect(
      startKubeApiServerEmulator({ resources: [hostedCluster('early')] }),
    ).rejects.toThrow(
      'Cannot seed HostedCluster hypershift.openshift.io/v1beta1: not a kind served under /apis (register its CRD first)',
    );
  });
});
