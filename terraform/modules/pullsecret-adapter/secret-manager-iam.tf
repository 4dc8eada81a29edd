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
