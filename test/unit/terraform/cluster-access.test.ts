// Issue 15, Terraform side, on the parsed HCL: how the module grants the job access to the
// management clusters (map and deprecated variable), hands it their configuration, and how the
// cluster-rbac module and the example apply the RBAC and the admission fence per cluster.
import fs from 'node:fs';
import path from 'node:path';
import { loadModules, TERRAFORM_ROOT, type TfModule, block, resourceBody, moduleAt } from '../../helpers/terraform';

const read = (file: string) => fs.readFileSync(path.join(TERRAFORM_ROOT, file), 'utf8');

describe('terraform: access to the management clusters', () => {
  let adapter: TfModule;
  let clusters: TfModule;
  let rbac: TfModule;
  let example: TfModule;
  const resource = resourceBody;

  beforeAll(async () => {
    const modules = await loadModules();
    const at = (dir: string) => moduleAt(modules, dir);
    adapter = at('modules/pullsecret-adapter');
    clusters = at('modules/pullsecret-adapter/modules/management-clusters');
    rbac = at('modules/pullsecret-cluster-rbac');
    example = at('examples/basic');
  });

  it('grants the job one project role per (project, role) the map needs, from the pure module', () => {
    const grant = resource(adapter, 'google_project_iam_member', 'job_management_cluster');
    expect(grant).toEqual({
      for_each: '${module.management_clusters.project_grants}',
      project: '${each.value.project}',
      role: '${each.value.role}',
      member: 'serviceAccount:${google_service_account.job.email}',
      depends_on: ['${google_project_service.connect_gateway}'],
    });
    // Gateway Editor covers every gateway call (gkehub.gateway.* and gkehub.memberships.get): no Fleet Viewer.
    expect(clusters.locals.roles_by_kind).toEqual({
      gke: ['roles/container.clusterViewer'],
      'connect-gateway': ['roles/gkehub.gatewayEditor'],
    });
    const all = [adapter, clusters, rbac, example].flatMap((m) => m.strings).join('\n');
    expect(all).not.toContain('roles/gkehub.viewer');
    expect(adapter.modules.management_clusters).toMatchObject({
      source: './modules/management-clusters',
      management_clusters: '${var.management_clusters}',
      default_management_cluster: '${var.default_management_cluster}',
      legacy_management_cluster: '${var.management_cluster}',
      job_identity: '${local.job_identity}',
    });
  });

  it('enables the Connect Gateway and GKE Hub APIs in each fleet host project the pure module names, before the grants', () => {
    expect(resource(adapter, 'google_project_service', 'connect_gateway')).toEqual({
      for_each: '${{ for key, api in module.management_clusters.gateway_apis : key => api if var.enable_apis }}',
      project: '${each.value.project}',
      service: '${each.value.service}',
      disable_on_destroy: false,
    });
    expect(clusters.locals.gateway_services).toEqual(['connectgateway.googleapis.com', 'gkehub.googleapis.com']);
    // Only for connect-gateway clusters (management-clusters.test.ts evaluates it).
    expect(String(clusters.locals.gateway_projects)).toContain('if cluster.kind == "connect-gateway"');
    expect(resource(adapter, 'google_project_iam_member', 'job_connect_gateway').depends_on).toEqual(['${google_project_service.connect_gateway}']);
  });

  it('keeps the deprecated variable\'s two grants at their addresses, so upgrading with it plans no IAM change', () => {
    const viewer = resource(adapter, 'google_project_iam_member', 'job_cluster_viewer');
    expect(viewer).toMatchObject({ count: '${var.management_cluster == null ? 0 : 1}', project: '${var.management_cluster.project_id}', role: 'roles/container.clusterViewer' });
    const gateway = resource(adapter, 'google_project_iam_member', 'job_connect_gateway');
    expect(gateway).toMatchObject({ count: '${local.legacy_connect_gateway ? 1 : 0}', role: 'roles/gkehub.gatewayEditor' });
    // Adding count moves the old unkeyed instance to [0] (Terraform does it; the block documents it).
    expect(read('modules/pullsecret-adapter/cluster-access.tf')).toMatch(
      /moved \{\s*from = google_project_iam_member\.job_cluster_viewer\s*to\s*= google_project_iam_member\.job_cluster_viewer\[0\]\s*\}/,
    );
    expect(String(adapter.variables.management_cluster?.description)).toMatch(/^DEPRECATED \(use management_clusters\)/);
    expect(adapter.variables.management_cluster?.default).toBeNull();
    // Null by default: `var.management_cluster == null || var.management_cluster.x` would fail every
    // plan that leaves it unset (Terraform evaluates both operands of ||), so each rule is `? true :`.
    const rules = adapter.variables.management_cluster?.validation as { condition: string }[];
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) expect(rule.condition).toMatch(/^\$\{var\.management_cluster == null \? true : /);
  });

  it('hands the job its clusters from the pure module, and uses an identity known at plan time', () => {
    const jobEnv = String(adapter.locals.job_env);
    expect(jobEnv).toContain('module.management_clusters.job_env');
    expect(jobEnv).not.toContain('var.management_cluster');
    expect(adapter.locals.job_identity).toBe('${var.name_prefix}-job@${var.project_id}.iam.gserviceaccount.com');
    expect(resource(adapter, 'google_service_account', 'job').account_id).toBe('${var.name_prefix}-job');
    expect(adapter.locals.management_cluster_rbac).toBe('${module.management_clusters.rbac}');
    expect(adapter.outputs.management_cluster_rbac?.value).toBe('${local.management_cluster_rbac}');
    expect(String(adapter.outputs.management_cluster_rbac_inputs?.value)).not.toContain('connect_agent_impersonation');
  });

  it('applies the fence from the same template, before any binding, and never binds cluster-wide without it', () => {
    expect(String(rbac.locals.fence_documents)).toContain('${path.module}/templates/management-cluster-fence.yaml.tftpl');
    // The same parse as the pure module's, which management-clusters.test.ts evaluates with terraform.
    const parse = (expression: unknown, templatePath: string, identity: string) =>
      String(expression).replace(templatePath, 'TEMPLATE').replace(identity, 'IDENTITY').replace(/\s+/g, ' ');
    expect(parse(rbac.locals.fence_documents, '${path.module}/templates/', 'var.job_service_account')).toBe(
      parse(clusters.locals.fence_documents, '${path.module}/../../../pullsecret-cluster-rbac/templates/', 'var.job_identity'),
    );
    // The same variables: the job's identity, and the namespace layout module's rule and words.
    expect(parse(JSON.stringify(rbac.locals.fence_variables), '', 'var.job_service_account')).toBe(
      parse(JSON.stringify(clusters.locals.fence_variables), '', 'var.job_identity'),
    );
    expect(resource(rbac, 'kubernetes_manifest', 'fence_policy')).toEqual({ count: '${var.fence ? 1 : 0}', manifest: '${local.fence_policy}' });
    expect(resource(rbac, 'kubernetes_manifest', 'fence_binding')).toMatchObject({ manifest: '${local.fence_binding}', depends_on: ['${kubernetes_manifest.fence_policy}'] });
    for (const binding of ['kubernetes_cluster_role_binding_v1', 'kubernetes_role_binding_v1'])
      expect(resource(rbac, binding, 'writer').depends_on).toEqual(['${kubernetes_manifest.fence_binding}']);
    const clusterWide = resource(rbac, 'kubernetes_cluster_role_binding_v1', 'writer');
    expect(block(block(clusterWide, 'lifecycle'), 'precondition').condition).toBe('${var.fence}');
    expect(rbac.variables.cluster_wide?.default).toBe(true);
    expect(rbac.variables.fence?.default).toBe(true);
    // No Connect Agent impersonation: only GKE memberships are accepted behind the gateway.
    expect(rbac.resources.map((r) => `${r.type}.${r.name}`).sort()).toEqual([
      'kubernetes_cluster_role_binding_v1.writer',
      'kubernetes_cluster_role_v1.writer',
      'kubernetes_manifest.fence_binding',
      'kubernetes_manifest.fence_policy',
      'kubernetes_role_binding_v1.writer',
    ]);
    expect(Object.keys(rbac.variables).sort()).toEqual(['cluster_wide', 'fence', 'job_service_account', 'namespace_layout', 'namespaces']);
    const template = read('modules/pullsecret-cluster-rbac/templates/management-cluster-rbac.yaml.tftpl');
    expect(template).not.toMatch(/"impersonate"|connect-agent-sa|connect_agent_impersonation/);
    // Only plain ${var}, %{ if var }, %{ for x in var } (the local stack's renderer knows no more),
    // over the five variables the pure module passes.
    const directives = [...template.matchAll(/%\{~?\s*([^}]*?)\s*~?\}/g)].map((m) => m[1]!.split(/\s+/)[0]);
    expect(new Set(directives)).toEqual(new Set(['if', 'endif', 'for', 'endfor']));
    const used = new Set([
      ...[...template.matchAll(/(?<!\$)\$\{~?\s*([^}]*?)\s*~?\}/g)].map((m) => m[1]!),
      ...[...template.matchAll(/%\{~?\s*if\s+(\w+)/g)].map((m) => m[1]!),
      ...[...template.matchAll(/%\{~?\s*for\s+\w+\s+in\s+(\w+)/g)].map((m) => m[1]!),
    ]);
    used.delete('namespace'); // the loop variable
    expect([...used].sort()).toEqual(['cluster', 'cluster_wide', 'credentials_command', 'job_service_account', 'namespaces']);
  });

  it('the example configures one provider per cluster: GKE with its CA (base64 or PEM) or none (DNS endpoint), Connect Gateway without', () => {
    const providerTf = read('examples/basic/cluster-rbac.tf');
    const provider = (alias: string) => new RegExp(`provider "kubernetes" \\{\\s*alias\\s*= "${alias}"[^}]*\\}`).exec(providerTf)?.[0] ?? '';
    expect(provider('gke')).toMatch(/host\s*=\s*try\(local\.clusters\[local\.gke_cluster\]\.endpoint, null\)/);
    // A DNS-based endpoint has no CA: try() makes it null, so the provider trusts the public roots.
    expect(provider('gke').replace(/\s+/g, ' ')).toContain(
      'cluster_ca_certificate = try( startswith(local.clusters[local.gke_cluster].ca_certificate, "-----BEGIN") ? local.clusters[local.gke_cluster].ca_certificate : base64decode(local.clusters[local.gke_cluster].ca_certificate), null, )',
    );
    expect(provider('connect_gateway')).toMatch(/host\s*=\s*try\(local\.clusters\[local\.connect_gateway_cluster\]\.endpoint, null\)/);
    expect(provider('connect_gateway')).not.toContain('cluster_ca_certificate');
    for (const alias of ['gke', 'connect_gateway']) expect(provider(alias)).toMatch(/token\s*=\s*data\.google_client_config\.current\.access_token/);
    expect(example.modules.gke_cluster_rbac?.providers).toEqual({ kubernetes: '${kubernetes.gke}' });
    expect(example.modules.connect_gateway_cluster_rbac?.providers).toEqual({ kubernetes: '${kubernetes.connect_gateway}' });
    expect(example.modules.pullsecret_adapter).toMatchObject({ management_clusters: '${var.management_clusters}', default_management_cluster: '${var.default_management_cluster}' });
  });
});
