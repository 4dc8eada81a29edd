# Secret Manager rights in the platform project only. The rights in customer projects (the job's
# custom role on hyperfleet-* secrets, the reporter's metadata view, HyperShift's reader) are
# granted by the module pullsecret-tenant-project where those projects are made, from this module's
# tenant_access output: this module holds no per-project resource, so a plan does not grow with
# the number of customer projects (docs/deployment.md, "Onboarding a customer project").

# The platform's default pull secret, when configured, is read by the job (AccessSecretVersion:
# roles/secretmanager.secretAccessor, https://cloud.google.com/secret-manager/docs/access-control).
resource "google_secret_manager_secret_iam_member" "job_reads_default_pull_secret" {
  count     = var.default_pull_secret_version == null ? 0 : 1
  project   = split("/", var.default_pull_secret_version)[1]
  secret_id = split("/", var.default_pull_secret_version)[3]
  role      = local.grant["job-reads-default-pull-secret"].role
  member    = "serviceAccount:${google_service_account.job.email}"
}

# With `latest` (the default), the job reads the default's newest ENABLED version instead of
# Secret Manager's `latest`, which is the most recently created one and fails on access while that
# one is disabled: ListSecretVersions with filter state:ENABLED (functions/pull-secret-job/run/
# resolve-pull-secret.ts). That needs secretmanager.versions.list on this one secret
# (https://cloud.google.com/secret-manager/docs/reference/rest/v1/projects.secrets.versions/list).
# roles/secretmanager.viewer is the predefined role with the fewest other permissions that holds it:
# on a secret it adds only secretmanager.secrets.get and secretmanager.versions.get, metadata, never
# a payload (https://cloud.google.com/iam/docs/roles-permissions/secretmanager). Not a custom role:
# a project-level custom role can be granted only in its own project, and the default secret may
# live in another one than var.project_id. A pinned version number lists nothing: no grant then.
resource "google_secret_manager_secret_iam_member" "job_lists_default_pull_secret_versions" {
  count     = var.default_pull_secret_version == null ? 0 : (endswith(var.default_pull_secret_version, "/versions/latest") ? 1 : 0)
  project   = split("/", var.default_pull_secret_version)[1]
  secret_id = split("/", var.default_pull_secret_version)[3]
  role      = local.grant["job-lists-default-pull-secret-versions"].role
  member    = "serviceAccount:${google_service_account.job.email}"
}

# The adapter tells a retired version of the default from a revoked current one: when Secret
# Manager notifies that a version was disabled or destroyed, it lists the enabled versions
# (functions/adapter/flows/fleet-request-flow.ts) and alerts only when none newer is enabled.
# The same role as the job's above, on this one secret, for the same reasons (metadata only).
resource "google_secret_manager_secret_iam_member" "adapter_lists_default_pull_secret_versions" {
  count     = var.default_pull_secret_version == null ? 0 : (endswith(var.default_pull_secret_version, "/versions/latest") ? 1 : 0)
  project   = split("/", var.default_pull_secret_version)[1]
  secret_id = split("/", var.default_pull_secret_version)[3]
  role      = local.grant["adapter-lists-default-pull-secret-versions"].role
  member    = "serviceAccount:${google_service_account.adapter.email}"
}
