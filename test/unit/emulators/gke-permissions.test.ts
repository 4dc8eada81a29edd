// The GKE roles Terraform grants (and the ones that would open a hole), and the Kubernetes
// emulator's map from each request to the IAM permission GKE checks (kube-apiserver/gke-iam.ts,
// one table). The grants themselves come from terraform/modules/runtime-grants.json
// (test/unit/terraform/runtime-grants.test.ts).
import { PREDEFINED_ROLES } from '../../../emulators/common/iam/roles';
import { gkePermission } from '../../../emulators/kube-apiserver/gke-iam';

describe('GKE roles as the emulators know them', () => {
  it("Terraform's role lets the job in (container.clusters.get) and holds no container.secrets.*", () => {
    const viewer = PREDEFINED_ROLES['roles/container.clusterViewer']!;
    expect(viewer).toContain('container.clusters.get');
    expect(viewer.filter((p) => p.startsWith('container.secrets.'))).toEqual([]);
    expect(PREDEFINED_ROLES['roles/container.developer']).toEqual(
      expect.arrayContaining(['container.secrets.get', 'container.secrets.list']),
    );
    expect(
      PREDEFINED_ROLES['roles/container.viewer']!.filter((p) => p.startsWith('container.secrets.')),
    ).toEqual([]);
  });
});

describe('Kubernetes request -> GKE IAM permission', () => {
  const secrets = (verb: string) => gkePermission({ verb, group: '', resource: 'secrets' });
  it.each([
    ['get', 'container.secrets.get'],
    ['list', 'container.secrets.list'],
    ['watch', 'container.secrets.list'],
    ['create', 'container.secrets.create'],
    ['update', 'container.secrets.update'],
    ['patch', 'container.secrets.update'],
    ['delete', 'container.secrets.delete'],
    ['deletecollection', 'container.secrets.delete'],
  ])('secrets %s is %s', (verb, permission) => {
    expect(secrets(verb)).toBe(permission);
  });

  it('namespaces, configmaps, CRDs and custom resources; nothing for the rest', () => {
    expect(gkePermission({ verb: 'get', group: '', resource: 'namespaces' })).toBe(
      'container.namespaces.get',
    );
    expect(gkePermission({ verb: 'list', group: '', resource: 'configmaps' })).toBe(
      'container.configMaps.list',
    );
    expect(
      gkePermission({
        verb: 'create',
        group: 'apiextensions.k8s.io',
        resource: 'customresourcedefinitions',
      }),
    ).toBe('container.customResourceDefinitions.create');
    expect(
      gkePermission({
        verb: 'patch',
        group: 'hypershift.openshift.io',
        resource: 'hostedclusters',
        customResource: true,
      }),
    ).toBe('container.thirdPartyObjects.update');
    // Not in the table: IAM allows nothing RBAC denied.
    expect(
      gkePermission({ verb: 'get', group: '', resource: 'secrets', subresource: 'status' }),
    ).toBeUndefined();
    expect(gkePermission({ verb: 'impersonate', group: '', resource: 'users' })).toBeUndefined();
    expect(
      gkePermission({
        verb: 'create',
        group: 'rbac.authorization.k8s.io',
        resource: 'clusterroles',
      }),
    ).toBeUndefined();
  });
});
