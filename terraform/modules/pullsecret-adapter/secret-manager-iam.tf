# The job manages only hyperfleet-* secrets in the customer projects: a custom role with the
# operations it performs, granted with an IAM condition on the secret name. The Project resource
# type is allowed too, because creating and listing secrets is checked on the project.

data "google_project" "target" {
  for_each   = toset(var.target_project_ids)
  project_id = each.key
}

resource "google_project_iam_custom_role" "secret_manager" {
  for_each    = toset(var.target_project_ids)
  project     = each.key
  role_id     = "hyperfleetPullSecretManager"
  title       = "HyperFleet pull secret manager"
  description = "What the HyperFleet pull secret job needs on its own hyperfleet-* secrets."
  permissions = [
    "secretmanager.secrets.create",
    "secretmanager.secrets.delete",
    "secretmanager.secrets.get",
    "secretmanager.secrets.list",
    "secretmanager.secrets.update",
    "secretmanager.versions.access",
    "secretmanager.versions.add",
    "secretmanager.versions.destroy",
    "secretmanager.versions.disable",
    "secretmanager.versions.enable",
    "secretmanager.versions.get",
    "secretmanager.versions.list",
  ]
}

resource "google_project_iam_member" "job_secret_manager" {
  for_each = toset(var.target_project_ids)
  project  = each.key
  role     = google_project_iam_custom_role.secret_manager[each.key].id
  member   = "serviceAccount:${google_service_account.job.email}"
  condition {
    title       = "hyperfleet-secrets-only"
    description = "Only secrets whose id starts with hyperfleet-."
    expression  = "resource.type == \"cloudresourcemanager.googleapis.com/Project\" || resource.name.startsWith(\"projects/${data.google_project.target[each.key].number}/secrets/hyperfleet-\")"
  }
}

# HyperShift's reader may access hyperfleet-* secret versions, nothing else.
resource "google_project_iam_member" "reader_secret_accessor" {
  for_each = toset(var.target_project_ids)
  project  = each.key
  role     = "roles/secretmanager.secretAccessor"
  member   = "serviceAccount:${google_service_account.reader.email}"
  condition {
    title       = "hyperfleet-secrets-only"
    description = "Only secrets whose id starts with hyperfleet-."
    expression  = "resource.name.startsWith(\"projects/${data.google_project.target[each.key].number}/secrets/hyperfleet-\")"
  }
}

# The platform's default pull secret, when configured, is read by the job.
resource "google_secret_manager_secret_iam_member" "job_reads_default_pull_secret" {
  count     = var.default_pull_secret_version == null ? 0 : 1
  project   = split("/", var.default_pull_secret_version)[1]
  secret_id = split("/", var.default_pull_secret_version)[3]
  role      = "roles/secretmanager.secretAccessor"
  member    = "serviceAccount:${google_service_account.job.email}"
}

# The reporter reads the claim annotations of hyperfleet-* secrets (metadata, never payloads) to
# tell a duplicate execution's success from the claim holder's.
resource "google_project_iam_member" "reporter_secret_viewer" {
  for_each = toset(var.target_project_ids)
  project  = each.key
  role     = "roles/secretmanager.viewer"
  member   = "serviceAccount:${google_service_account.reporter.email}"
  condition {
    title       = "hyperfleet-secrets-only"
    description = "Only secrets whose id starts with hyperfleet-."
    expression  = "resource.name.startsWith(\"projects/${data.google_project.target[each.key].number}/secrets/hyperfleet-\")"
  }
}
