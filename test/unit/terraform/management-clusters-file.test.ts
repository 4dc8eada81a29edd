// The management clusters' list as Terraform delivers it: a JSON object in a bucket of its own
// (uniform access, public access prevention, versioning), the job's read-only Cloud Storage volume
// at MANAGEMENT_CLUSTERS_FILE's directory, and Storage Object Viewer on that bucket only. Checked on
// the module's HCL (the schema of each block is checked against the 7.x provider by
// required-arguments and provider-snapshots); the rendered content in management-clusters.test.ts.
import path from 'node:path';
import { loadModules, TERRAFORM_ROOT, type TfModule } from '../../helpers/terraform';
import { RUNTIME_GRANTS } from '../../../emulators/pullsecret/stack/runtime-grants';

type Body = Record<string, unknown>;
const first = (value: unknown): Body => (Array.isArray(value) ? value[0] : value) as Body;

describe('terraform: the management clusters as a mounted file', () => {
  let adapter: TfModule;
  const resource = (type: string, name: string) =>
    adapter.resources.find((r) => r.type === type && r.name === name)!.body;

  beforeAll(async () => {
    adapter = (await loadModules()).find(
      (m) => m.dir === path.join(TERRAFORM_ROOT, 'modules/pullsecret-adapter'),
    )!;
  });

  it('keeps the list in a bucket of its own: uniform access, no public access, versioned', () => {
    const bucket = resource('google_storage_bucket', 'management_clusters');
    expect(bucket).toMatchObject({
      uniform_bucket_level_access: true,
      public_access_prevention: 'enforced',
      for_each: '${local.clusters_files}',
    });
    expect(first(bucket.versioning)).toEqual({ enabled: true });
    const object = resource('google_storage_bucket_object', 'management_clusters');
    expect(object).toMatchObject({
      bucket: '${google_storage_bucket.management_clusters["list"].name}',
      name: '${local.clusters_file.object}',
      content: '${local.clusters_file.content}',
      content_type: 'application/json',
    });
    // Only with management_clusters: the deprecated single cluster keeps its variables.
    expect(String(adapter.locals.clusters_files)).toContain('var.management_cluster == null');
  });

  it("gives the job's service account Storage Object Viewer on that bucket only", () => {
    const grant = RUNTIME_GRANTS.grants['job-reads-management-clusters']!;
    expect(grant).toMatchObject({ identity: 'job', role: 'roles/storage.objectViewer' });
    expect(resource('google_storage_bucket_iam_member', 'job_reads_management_clusters')).toMatchObject({
      bucket: '${google_storage_bucket.management_clusters["list"].name}',
      role: 'roles/storage.objectViewer', // resolved by the loader from runtime-grants.json
      member: 'serviceAccount:${google_service_account.job.email}',
    });
    // No project-level storage role for the job anywhere.
    const projectRoles = adapter.resources
      .filter((r) => r.type === 'google_project_iam_member')
      .filter((r) => String(r.body.member).includes('google_service_account.job.'))
      .map((r) => String(r.body.role));
    expect(projectRoles.filter((role) => role.includes('storage'))).toEqual([]);
  });

  it('mounts the bucket read-only into the job where MANAGEMENT_CLUSTERS_FILE points, in the second generation environment', () => {
    const job = resource('google_cloud_run_v2_job', 'pull_secret');
    const template = first(first(job.template).template);
    expect(template.execution_environment).toBe('EXECUTION_ENVIRONMENT_GEN2');
    const volumes = (template.dynamic as { volumes: Body[] }).volumes.map((v) => first(v.content));
    const volume = volumes.find((v) => v.name === 'management-clusters')!;
    expect(first(volume.gcs)).toEqual({
      bucket: '${google_storage_bucket.management_clusters["list"].name}',
      read_only: true,
    });
    const container = first(template.containers);
    const mounts = (container.dynamic as { volume_mounts: Body[] }).volume_mounts.map((m) =>
      first(m.content),
    );
    expect(mounts).toContainEqual({
      name: 'management-clusters',
      mount_path: '${local.clusters_file.mount_dir}',
    });
    // The job is created after the object and the grant: an execution right after the apply mounts it.
    expect(job.depends_on).toEqual(
      expect.arrayContaining([
        '${google_storage_bucket_object.management_clusters}',
        '${google_storage_bucket_iam_member.job_reads_management_clusters}',
      ]),
    );
  });
});
