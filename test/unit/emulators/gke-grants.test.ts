// The local stack's GKE grants mirror Terraform's (roles_by_kind of
// modules/pullsecret-adapter/modules/management-clusters), and the Kubernetes emulator maps each
// request to the IAM permission GKE checks (kube-apiserver/gke-iam.ts, one table).
import { PREDEFINED_ROLES } from '../../../emulators/common/iam/roles';
import { gkePermission } from '../../../emulators/kube-apiserver/gke-iam';
import {
  gkeClusterResource,
  gkeIam,
  JOB_GKE_ROLES,
  withGkeGrants,
} from '../../../emulators/pullsecret/stack/gke-grants';
import { loadModules, moduleAt } from '../../helpers/terraform';

const JOB = 'pullsecret-job@demo-hyperfleet.iam.gserviceaccount.com';

describe("the local stack's GKE grants", () => {
  it("are Terraform's roles per kind; the gateway's role holds no container.* permission", async () => {
    const modules = await loadModules();
    const rolesByKind = moduleAt(modules, 'modules/pullsecret-adapter/modules/management-clusters')
      .locals.roles_by_kind as Record<string, string[]>;
    expect(JOB_GKE_ROLES.gke).toEqual(rolesByKind.gke);
    // Connect Gateway's role is the gateway emulator's to check (cluster-access.ts), not GKE's IAM.
    expect(rolesByKind['connect-gateway']!.every((r) => r.startsWith('roles/gkehub.'))).toBe(true);
    expect(JOB_GKE_ROLES['connect-gateway']).toEqual([]);
  });

  it('one binding per (project, role), on the project; none for gateway clusters', () => {
    const config = gkeIam({
      clusters: [
        { mode: 'ip', project: 'mgmt-a' },
        { mode: 'dns', project: 'mgmt-a' },
        { mode: 'connect-gateway', project: 'mgmt-b' },
      ],
      jobIdentity: JOB,
      serviceAccounts: { '123': JOB },
    });
    expect(config.bindings).toEqual([
      {
        resource: 'projects/mgmt-a',
        role: 'roles/container.clusterViewer',
        members: [`serviceAccount:${JOB}`],
      },
    ]);
    expect(Object.keys(config.projects)).toEqual(['mgmt-a', 'mgmt-b']);
    const merged = withGkeGrants({ projects: { other: '100000000009' }, bindings: [] }, config);
    expect(merged.bindings).toEqual(config.bindings);
    expect(Object.keys(merged.projects).sort()).toEqual(['mgmt-a', 'mgmt-b', 'other']);
    expect(gkeClusterResource('mgmt-a', 'us-central1', 'mgmt-1')).toBe(
      'projects/mgmt-a/locations/us-central1/clusters/mgmt-1',
    );
  });

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
