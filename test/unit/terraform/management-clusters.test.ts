// Issue 15 §2 and §3, Terraform side, evaluated by real Terraform: the pure module
// modules/pullsecret-adapter/modules/management-clusters decides the job's IAM per cluster, its
// MANAGEMENT_CLUSTERS_FILE (the list it mounts) and each cluster's RBAC + admission fence. It needs no provider, so
// `terraform apply` runs offline here and every validation, precondition and template is the one an
// operator's plan evaluates.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from '@cdktf/hcl2json';
import YAML from 'yaml';
import { renderFencePolicy } from '../../../emulators/pullsecret/management-cluster/fence-policy';
import { loadJobConfig } from '../../../functions/pull-secret-job/config/config';
import { TERRAFORM_ROOT } from '../../helpers/terraform';
import { TerraformModuleHarness, type TerraformResult } from '../../helpers/terraform-run';
import { describeWithTool } from '../../helpers/required-tools';

type Doc = Record<string, unknown> & { kind: string; metadata: { name: string; namespace?: string } };

const MODULE = path.join(TERRAFORM_ROOT, 'modules/pullsecret-adapter/modules/management-clusters');
const JOB = 'pullsecret-job@platform-project.iam.gserviceaccount.com';
const PEM = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ\n-----END CERTIFICATE-----\n';
const CA = Buffer.from(PEM).toString('base64');
const gatewayUrl = (membership: string, location = 'global') =>
  `https://connectgateway.googleapis.com/v1/projects/123456789012/locations/${location}/gkeMemberships/${membership}`;
const gke = (project: string, cluster = 'mgmt', endpoint = 'https://34.123.45.67') => ({ kind: 'gke', endpoint, ca_certificate: CA, project, location: 'us-central1', cluster_name: cluster });
const gateway = (project: string, membership = 'mgmt') => ({ kind: 'connect-gateway', endpoint: gatewayUrl(membership), project, location: 'global', membership });
// A GKE DNS-based endpoint: publicly trusted certificate, so no CA.
const DNS_ENDPOINT = 'https://gke-0123456789abcdef0123456789abcdef0123-123456789012.us-central1.gke.goog';
const dnsGke = (project: string, cluster = 'mgmt') => ({ kind: 'gke', endpoint: DNS_ENDPOINT, project, location: 'us-central1', cluster_name: cluster });


describeWithTool('terraform', 'terraform: the management clusters (evaluated by terraform, offline)', () => {
  let harness: TerraformModuleHarness;
  const apply = (values: Record<string, unknown>): TerraformResult =>
    harness.apply({ job_identity: JOB, ...values });
  type Outputs = {
    job_env: Record<string, string>;
    clusters_file: { content: string; object: string; mount_dir: string; path: string } | null;
    project_grants: Record<string, { project: string; role: string; clusters: string[] }>;
    gateway_apis: Record<string, { project: string; service: string; clusters: string[] }>;
    rbac: Record<string, string>;
    default_management_cluster: string | null;
  };
  let mounts: string;
  let mounted = 0;
  /**
   * The outputs, with the job's environment as the execution sees it: the list's object "mounted"
   * (written to a file of its own) and MANAGEMENT_CLUSTERS_FILE pointing there, as the Cloud
   * Storage volume does at clusters_file.mount_dir. `terraformJobEnv` is the environment as rendered.
   */
  const outputs = (values: Record<string, unknown>) => {
    const result = apply(values);
    if (!result.ok) throw new Error(`terraform apply failed: ${result.diagnostics}`);
    const out = result.outputs as Outputs;
    if (!out.clusters_file) return { ...out, terraformJobEnv: out.job_env };
    expect(out.job_env.MANAGEMENT_CLUSTERS_FILE).toBe(out.clusters_file.path);
    const file = path.join(mounts, String(++mounted), out.clusters_file.object);
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, out.clusters_file.content);
    return { ...out, terraformJobEnv: out.job_env, job_env: { ...out.job_env, MANAGEMENT_CLUSTERS_FILE: file } };
  };
  const list = (out: Outputs) => JSON.parse(out.clusters_file!.content) as unknown;
  const documents = (yaml: string): Doc[] =>
    YAML.parseAllDocuments(yaml).map((document) => {
      expect(document.errors).toEqual([]);
      return document.toJS() as Doc;
    });
  const byKind = (docs: Doc[], kind: string) => docs.filter((d) => d.kind === kind);

  beforeAll(() => {
    mounts = fs.mkdtempSync(path.join(os.tmpdir(), 'management-clusters-mount-'));
    harness = new TerraformModuleHarness(MODULE, ['management_clusters', 'default_management_cluster', 'legacy_management_cluster', 'job_identity']);
  });
  afterAll(() => {
    harness?.dispose();
    fs.rmSync(mounts, { recursive: true, force: true });
  });

  it('grants the job one role per cluster of its kind: GKE cluster viewer, or gateway editor on the fleet host (no fleet viewer)', () => {
    const { project_grants } = outputs({ management_clusters: { 'us-central1-mgmt-1': gke('mgmt-project-1'), 'us-east4-mgmt-2': gateway('fleet-host') } });
    expect(project_grants).toEqual({
      'mgmt-project-1/roles/container.clusterViewer': { project: 'mgmt-project-1', role: 'roles/container.clusterViewer', clusters: ['us-central1-mgmt-1'] },
      'fleet-host/roles/gkehub.gatewayEditor': { project: 'fleet-host', role: 'roles/gkehub.gatewayEditor', clusters: ['us-east4-mgmt-2'] },
    });
    expect(JSON.stringify(project_grants)).not.toContain('gkehub.viewer');
  });

  it('enables Connect Gateway and GKE Hub in the fleet host projects of gateway clusters only', () => {
    const withGateway = outputs({
      management_clusters: { 'mgmt-1': gke('mgmt-project-1'), 'mgmt-2': gateway('fleet-host', 'mgmt-2'), 'mgmt-3': gateway('fleet-host', 'mgmt-3'), 'mgmt-4': gateway('other-fleet', 'mgmt-4') },
    });
    expect(withGateway.gateway_apis).toEqual({
      'fleet-host/connectgateway.googleapis.com': { project: 'fleet-host', service: 'connectgateway.googleapis.com', clusters: ['mgmt-2', 'mgmt-3'] },
      'fleet-host/gkehub.googleapis.com': { project: 'fleet-host', service: 'gkehub.googleapis.com', clusters: ['mgmt-2', 'mgmt-3'] },
      'other-fleet/connectgateway.googleapis.com': { project: 'other-fleet', service: 'connectgateway.googleapis.com', clusters: ['mgmt-4'] },
      'other-fleet/gkehub.googleapis.com': { project: 'other-fleet', service: 'gkehub.googleapis.com', clusters: ['mgmt-4'] },
    });
    // GKE clusters alone (IP or DNS-based endpoint) enable nothing.
    expect(outputs({ management_clusters: { 'mgmt-1': gke('mgmt-project-1'), 'mgmt-3': dnsGke('mgmt-project-3') } }).gateway_apis).toEqual({});
    // The deprecated variable with a gateway URL: its project.
    const legacy = outputs({ legacy_management_cluster: { endpoint: gatewayUrl('mgmt'), project_id: 'fleet-host' } });
    expect(Object.keys(legacy.gateway_apis).sort()).toEqual(['fleet-host/connectgateway.googleapis.com', 'fleet-host/gkehub.googleapis.com']);
  });

  it('reaches a GKE cluster at its DNS-based endpoint without a CA: the job gets the endpoint alone, granted Cluster Viewer', () => {
    const dns = outputs({ management_clusters: { 'mgmt-3': dnsGke('mgmt-project-3') } });
    const { job_env, project_grants } = dns;
    expect(list(dns)).toEqual({ 'mgmt-3': { endpoint: DNS_ENDPOINT } });
    expect(Object.keys(project_grants)).toEqual(['mgmt-project-3/roles/container.clusterViewer']);
    const config = loadJobConfig({ ...job_env, CLUSTER_ID: 'cls-1', GCP_PROJECT_ID: 'customer-project', MANAGEMENT_NAMESPACE: 'clusters-cls-1', PULL_SECRET_DATA: '{"auths":{}}', OPERATION: 'apply' });
    expect(config.kubernetes?.access).toEqual({ kind: 'google', endpoint: DNS_ENDPOINT });
    // Another host name (a proxy, a private DNS name) may carry a CA, or not.
    for (const ca_certificate of [CA, PEM, null]) {
      const named = { ...gke('mgmt-project-1'), endpoint: 'https://mgmt-1.internal.example.com', ca_certificate };
      expect(apply({ management_clusters: { 'mgmt-1': named } }).ok).toBe(true);
    }
  });

  it('grants once per project and role, so removing one cluster never revokes what another needs', () => {
    const { project_grants } = outputs({
      management_clusters: { 'mgmt-b': gke('shared-project', 'b', 'https://10.0.0.2'), 'mgmt-a': gke('shared-project', 'a', 'https://10.0.0.1'), 'mgmt-c': gateway('shared-project', 'c') },
    });
    expect(Object.keys(project_grants).sort()).toEqual(['shared-project/roles/container.clusterViewer', 'shared-project/roles/gkehub.gatewayEditor']);
    expect(project_grants['shared-project/roles/container.clusterViewer']!.clusters).toEqual(['mgmt-a', 'mgmt-b']);
  });

  it('gives the job MANAGEMENT_CLUSTERS_FILE, the mounted list in the contract form (gke: endpoint + caCert; connect-gateway: endpoint), and DEFAULT_MANAGEMENT_CLUSTER', () => {
    const out = outputs({
      management_clusters: { 'mgmt-1': gke('mgmt-project-1'), 'mgmt-2': gateway('fleet-host', 'mgmt-2') },
      default_management_cluster: 'mgmt-2',
    });
    expect(out.terraformJobEnv).toEqual({
      MANAGEMENT_CLUSTERS_FILE: '/etc/hyperfleet/management-clusters/management-clusters.json',
      DEFAULT_MANAGEMENT_CLUSTER: 'mgmt-2',
    });
    expect(out.clusters_file).toMatchObject({ object: 'management-clusters.json', mount_dir: '/etc/hyperfleet/management-clusters' });
    expect(list(out)).toEqual({
      'mgmt-1': { endpoint: 'https://34.123.45.67', caCert: CA },
      'mgmt-2': { endpoint: gatewayUrl('mgmt-2') },
    });
  });

  it("renders an env the job's own config accepts: each cluster reachable by name, the default when placement names none", () => {
    const { job_env } = outputs({
      management_clusters: { 'mgmt-1': gke('mgmt-project-1'), 'mgmt-2': gateway('fleet-host', 'mgmt-2') },
      default_management_cluster: 'mgmt-1',
    });
    const execution = { CLUSTER_ID: 'cls-1', GCP_PROJECT_ID: 'customer-project', MANAGEMENT_NAMESPACE: 'clusters-cls-1', PULL_SECRET_DATA: '{"auths":{}}', OPERATION: 'apply' };
    const placed = loadJobConfig({ ...job_env, ...execution, MANAGEMENT_CLUSTER: 'mgmt-2' }).kubernetes!;
    expect(placed.cluster).toBe('mgmt-2');
    expect(placed.access).toEqual({ kind: 'google', endpoint: gatewayUrl('mgmt-2') });
    expect(placed.clusters).toEqual({
      'mgmt-1': { kind: 'google', endpoint: 'https://34.123.45.67', caPem: PEM },
      'mgmt-2': { kind: 'google', endpoint: gatewayUrl('mgmt-2') },
    });
    const unplaced = loadJobConfig({ ...job_env, ...execution }).kubernetes!;
    expect(unplaced.cluster).toBe('mgmt-1');
    expect(unplaced.access).toEqual({ kind: 'google', endpoint: 'https://34.123.45.67', caPem: PEM });
  });

  it('defaults to the only cluster, and to none when there are several and no default', () => {
    const one = outputs({ management_clusters: { 'mgmt-1': gke('mgmt-project-1') } });
    expect(one.default_management_cluster).toBe('mgmt-1');
    expect(one.job_env.DEFAULT_MANAGEMENT_CLUSTER).toBe('mgmt-1');
    const several = outputs({ management_clusters: { 'mgmt-1': gke('mgmt-project-1'), 'mgmt-2': gke('mgmt-project-2', 'mgmt', 'https://10.0.0.2') } });
    expect(several.default_management_cluster).toBeNull();
    expect(several.job_env).not.toHaveProperty('DEFAULT_MANAGEMENT_CLUSTER');
  });

  it('renders per cluster the ClusterRole, its binding to the job identity and the fence (policy + binding) bound to the same identity', () => {
    const { rbac } = outputs({ management_clusters: { 'mgmt-1': gke('mgmt-project-1'), 'mgmt-2': gateway('fleet-host') } });
    expect(Object.keys(rbac).sort()).toEqual(['mgmt-1', 'mgmt-2']);
    for (const [name, yaml] of Object.entries(rbac)) {
      const docs = documents(yaml);
      const role = byKind(docs, 'ClusterRole').find((d) => d.metadata.name === 'hyperfleet-pullsecret-writer')!;
      expect(role.rules).toEqual([{ apiGroups: [''], resources: ['secrets'], verbs: ['create', 'patch', 'delete'] }]);
      const binding = byKind(docs, 'ClusterRoleBinding').find((d) => d.metadata.name === 'hyperfleet-pullsecret-writer')!;
      expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'hyperfleet-pullsecret-writer' });
      expect(binding.subjects).toEqual([{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: JOB }]);
      expect(byKind(docs, 'RoleBinding')).toEqual([]);
      const [policy] = byKind(docs, 'ValidatingAdmissionPolicy');
      const [policyBinding] = byKind(docs, 'ValidatingAdmissionPolicyBinding');
      expect(JSON.stringify((policy!.spec as Record<string, unknown>).matchConditions)).toContain(`request.userInfo.username == '${JOB}'`);
      expect(policyBinding!.spec).toMatchObject({ policyName: policy!.metadata.name, validationActions: ['Deny'] });
      // One source: exactly what the local stack installs from the same template.
      expect([policy, policyBinding]).toEqual(renderFencePolicy(JOB));
      expect(yaml).toContain(name === 'mgmt-1' ? 'gcloud container clusters get-credentials mgmt --location us-central1 --project mgmt-project-1' : 'gcloud container fleet memberships get-credentials mgmt --location global --project fleet-host');
    }
    // The same objects whichever way the cluster is reached: for a GKE membership the gateway passes
    // the job's own identity on, so nothing lets a Connect Agent impersonate it.
    for (const yaml of Object.values(rbac)) {
      const docs = documents(yaml);
      expect(docs.map((d) => `${d.kind}/${d.metadata.name}`).sort()).toEqual([
        'ClusterRole/hyperfleet-pullsecret-writer',
        'ClusterRoleBinding/hyperfleet-pullsecret-writer',
        'ValidatingAdmissionPolicy/hyperfleet-pullsecret-fence',
        'ValidatingAdmissionPolicyBinding/hyperfleet-pullsecret-fence',
      ]);
      expect(yaml).not.toMatch(/impersonate|connect-agent/);
    }
  });

  it('parses the fence template into the two objects kubernetes_manifest applies, as the local stack does', () => {
    const { fence_manifests } = outputs({ management_clusters: { 'mgmt-1': gke('mgmt-project-1') } }) as unknown as { fence_manifests: Doc[] };
    expect(fence_manifests.map((d) => d.kind)).toEqual(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);
    expect(fence_manifests).toEqual(renderFencePolicy(JOB));
  });

  it('binds per namespace instead of cluster-wide when a cluster lists namespaces, still fenced', () => {
    const { rbac } = outputs({ management_clusters: { 'mgmt-1': { ...gke('mgmt-project-1'), namespaces: ['clusters-a', 'clusters-b'] } } });
    const docs = documents(rbac['mgmt-1']!);
    expect(byKind(docs, 'ClusterRoleBinding')).toEqual([]);
    expect(byKind(docs, 'RoleBinding').map((d) => [d.metadata.namespace, d.subjects])).toEqual([
      ['clusters-a', [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: JOB }]],
      ['clusters-b', [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: JOB }]],
    ]);
    expect(byKind(docs, 'ValidatingAdmissionPolicy')).toHaveLength(1);
  });

  it('keeps the deprecated management_cluster working: the same job env and RBAC binding as before, its own grants, a warning', () => {
    const legacy = { endpoint: 'https://34.123.45.67', ca_certificate: CA, project_id: 'mgmt-project', namespaces: ['clusters-a'] };
    const result = apply({ legacy_management_cluster: legacy });
    expect(result.ok).toBe(true);
    expect(result.diagnostics).toContain('management_cluster is deprecated: move it into management_clusters');
    const out = result.outputs as Outputs;
    // Today's variables, unchanged: upgrading plans no change to the job, and no file.
    expect(out.job_env).toEqual({ MANAGEMENT_CLUSTER_ENDPOINT: legacy.endpoint, MANAGEMENT_CLUSTER_CA_CERT: CA });
    expect(out.clusters_file).toBeNull();
    expect(out.project_grants).toEqual({}); // cluster-access.tf keeps job_cluster_viewer[0] for it
    const docs = documents(out.rbac.default!);
    expect(byKind(docs, 'RoleBinding').map((d) => d.metadata.namespace)).toEqual(['clusters-a']);
    expect(byKind(docs, 'ClusterRoleBinding')).toEqual([]); // cluster_wide_rbac defaulted to false
    expect(byKind(docs, 'ValidatingAdmissionPolicy')).toHaveLength(1);
    const config = loadJobConfig({ ...out.job_env, CLUSTER_ID: 'cls-1', GCP_PROJECT_ID: 'customer-project', MANAGEMENT_NAMESPACE: 'clusters-a', PULL_SECRET_DATA: '{"auths":{}}', OPERATION: 'apply' });
    expect(config.kubernetes?.access).toEqual({ kind: 'google', endpoint: legacy.endpoint, caPem: PEM });

    const named = outputs({ legacy_management_cluster: legacy, default_management_cluster: 'us-central1-mgmt-1' });
    expect(Object.keys(named.rbac)).toEqual(['us-central1-mgmt-1']);
    expect(named.job_env.DEFAULT_MANAGEMENT_CLUSTER).toBe('us-central1-mgmt-1');
  });

  it('accepts the two clusters of terraform.tfvars.example as written (one GKE with its CA placeholder, one Connect Gateway)', async () => {
    const file = path.join(TERRAFORM_ROOT, 'examples/basic/terraform.tfvars.example');
    const tfvars = (await parse('terraform.tfvars', fs.readFileSync(file, 'utf8'))) as { management_clusters: Record<string, Record<string, unknown>>; default_management_cluster: string };
    const clusters = tfvars.management_clusters;
    // The placeholder passes validation as base64 of a PEM block, so a copied example plans; it says to replace it.
    expect(Buffer.from(String(clusters['us-central1-mgmt-1']!.ca_certificate), 'base64').toString()).toMatch(/^-----BEGIN CERTIFICATE-----\nREPLACE/);
    expect(Object.values(clusters).map((c) => c.kind).sort()).toEqual(['connect-gateway', 'gke']);
    const { project_grants, job_env } = outputs({ management_clusters: clusters, default_management_cluster: tfvars.default_management_cluster });
    expect(Object.values(project_grants).map((g) => g.role).sort()).toEqual(['roles/container.clusterViewer', 'roles/gkehub.gatewayEditor']);
    expect(job_env.DEFAULT_MANAGEMENT_CLUSTER).toBe(tfvars.default_management_cluster);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['a name that is not a DNS label', { management_clusters: { Mgmt_1: gke('mgmt-project-1') } }, ['names must be DNS labels', '"Mgmt_1"']],
    ['a default that is not a cluster', { management_clusters: { 'mgmt-1': gke('p-mgmt-1'), 'mgmt-2': gateway('p-mgmt-2') }, default_management_cluster: 'mgmt-9' }, ['default_management_cluster "mgmt-9" is not one of management_clusters (mgmt-1, mgmt-2)']],
    ['a gke cluster at its IP endpoint without CA', { management_clusters: { 'mgmt-1': { ...gke('mgmt-project-1'), ca_certificate: null } } }, ['A gke cluster reached at its IP endpoint (https://IP) needs ca_certificate', 'DNS-based endpoint', 'Missing: mgmt-1.']],
    ['a gke CA that is not a certificate', { management_clusters: { 'mgmt-1': { ...gke('mgmt-project-1'), ca_certificate: Buffer.from('hello').toString('base64') } } }, ['ca_certificate must be a certificate', 'not a certificate: mgmt-1.']],
    ['a DNS-based endpoint with a CA (TLS would fail)', { management_clusters: { 'mgmt-3': { ...dnsGke('mgmt-project-3'), ca_certificate: CA } } }, ['DNS-based endpoint (https://*.gke.goog) takes no ca_certificate', 'publicly trusted certificate', 'TLS would fail', 'Remove ca_certificate from: mgmt-3.']],
    ['a DNS-based endpoint in capitals with a PEM CA', { management_clusters: { 'mgmt-3': { ...dnsGke('mgmt-project-3'), endpoint: DNS_ENDPOINT.toUpperCase().replace('HTTPS', 'https'), ca_certificate: PEM } } }, ['takes no ca_certificate', 'mgmt-3']],
    ['an unknown kind', { management_clusters: { 'mgmt-1': { ...gke('mgmt-project-1'), kind: 'eks' } } }, ['kind must be gke or connect-gateway', 'mgmt-1 ("eks")']],
    ['a gke cluster with a gateway URL', { management_clusters: { 'mgmt-1': { ...gke('mgmt-project-1'), endpoint: gatewayUrl('mgmt') } } }, ['a Connect Gateway URL needs kind = "connect-gateway"']],
    ['a gateway URL naming another membership', { management_clusters: { 'mgmt-2': { ...gateway('fleet-host', 'mgmt-2'), endpoint: gatewayUrl('other') } } }, ["connect-gateway cluster's endpoint must be", 'mgmt-2']],
    ['a gateway cluster with a CA', { management_clusters: { 'mgmt-2': { ...gateway('fleet-host'), ca_certificate: CA } } }, ['needs membership', 'no ca_certificate', 'TLS would fail']],
    ['a gateway URL naming the project by id, not number', { management_clusters: { 'mgmt-2': { ...gateway('fleet-host', 'mgmt-2'), endpoint: gatewayUrl('mgmt-2').replace('123456789012', 'fleet-host') } } }, ['PROJECT_NUMBER', 'by its number, not its id', 'mgmt-2']],
    ['a gateway URL for a non-GKE membership (/memberships/)', { management_clusters: { 'mgmt-2': { ...gateway('fleet-host', 'mgmt-2'), endpoint: gatewayUrl('mgmt-2').replace('gkeMemberships', 'memberships') } } }, ["connect-gateway cluster's endpoint must be", 'mgmt-2']],
    ['the deprecated variable at an IP endpoint without CA', { legacy_management_cluster: { endpoint: 'https://34.1.2.3', project_id: 'mgmt-project' } }, ['management_cluster is reached at its IP endpoint (https://IP) and needs ca_certificate']],
    ['the deprecated variable at a DNS-based endpoint with a CA', { legacy_management_cluster: { endpoint: DNS_ENDPOINT, ca_certificate: CA, project_id: 'mgmt-project' } }, ['management_cluster is reached at its DNS-based endpoint', 'Remove ca_certificate']],
    ['the deprecated variable with a gateway URL naming a project id', { legacy_management_cluster: { endpoint: gatewayUrl('mgmt').replace('123456789012', 'fleet-host'), project_id: 'fleet-host' } }, ['PROJECT_NUMBER', 'not its id']],
    ['a bad project id', { management_clusters: { 'mgmt-1': gke('Not_A_Project') } }, ['must be a GCP project id', 'mgmt-1']],
    ['a location that is no region, zone or global', { management_clusters: { 'mgmt-1': { ...gke('mgmt-project-1'), location: 'US Central' } } }, ['location must be a region, a zone or global', 'mgmt-1']],
    ['two names for one cluster (a move between them would delete what it wrote)', { management_clusters: { 'mgmt-1': gke('mgmt-project-1'), 'mgmt-1-alias': gke('mgmt-project-1') } }, ['must name each cluster once', 'mgmt-1, mgmt-1-alias']],
    ['a bad namespace', { management_clusters: { 'mgmt-1': { ...gke('mgmt-project-1'), namespaces: ['Clusters_A'] } } }, ['namespaces must be Kubernetes namespace names']],
    ['both the map and the deprecated variable', { management_clusters: { 'mgmt-1': gke('mgmt-project-1') }, legacy_management_cluster: { endpoint: 'https://34.1.2.3', ca_certificate: CA, project_id: 'mgmt-project' } }, ['not both']],
    ['no management cluster at all', {}, ['at least one management cluster']],
  ])('refuses %s with a message that says what to fix', (_case, values, messages) => {
    const result = apply(values);
    expect(result.ok).toBe(false);
    for (const message of messages) expect(result.diagnostics).toContain(message);
  });
});
