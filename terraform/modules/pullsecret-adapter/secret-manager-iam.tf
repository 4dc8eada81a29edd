# The job manages only hyperfleet-* secrets in the customer projects: a custom role with exactly
# the calls it makes (functions/pull-secret-job/google-secret-store.ts, claim-work.ts), granted with
# an IAM condition on the secret name.
#   GetSecret (read the claim and labels)  secrets.get       UpdateSecret (claim annotations, labels)  secrets.update
#   CreateSecret                            secrets.create    DeleteSecret (on_delete = delete)         secrets.delete
#   AccessSecretVersion (compare payload)   versions.access   AddSecretVersion                          versions.add
#   ListSecretVersions (retention, retain)  versions.list     DestroySecretVersion (retention)          versions.destroy
#   DisableSecretVersion (on_delete = retain) versions.disable
# It never lists secrets (secrets.list), never reads or sets IAM.
# The condition: every permission but secrets.create is checked on the secret or its versions,
# whose names start with projects/NUMBER/secrets/hyperfleet-. CreateSecret is checked on the
# project (Secret Manager cannot condition it on the new secret's id), hence the Project clause;
# it allows creating a secret of any id, and nothing else on it (see README, Deployment).

data "google_project" "target" {
  for_each   = toset(var.target_project_ids)
  project_id = each.key
}

# Custom role ids are unique per project and stay reserved for 7 (+37) days after deletion: a
# random suffix keeps two deployments (or a destroy and re-apply) from colliding.
resource "random_id" "role_suffix" {
  byte_length = 3
  keepers = {
    name_prefix = var.name_prefix
  }
}

resource "google_project_iam_custom_role" "secret_manager" {
  for_each    = toset(var.target_project_ids)
  project     = each.key
  role_id     = "${replace(var.name_prefix, "-", "_")}_pullSecretManager_${random_id.role_suffix.hex}"
  title       = "HyperFleet pull secret manager (${var.name_prefix})"
  description = "What the HyperFleet pull secret job needs on its own hyperfleet-* secrets."
  permissions = [
    "secretmanager.secrets.create",
    "secretmanager.secrets.delete",
    "secretmanager.secrets.get",
    "secretmanager.secrets.update",
    "secretmanager.versions.access",
    "secretmanager.versions.add",
    "secretmanager.versions.destroy",
    "secretmanager.versions.disable",
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

# CMEK (job.kms_key_name): Secret Manager encrypts with the key as its own service agent in each
# target project, which therefore needs encrypt/decrypt on the key. The agent exists once the
# Secret Manager API has been used in the project (else: gcloud beta services identity create
# --service=secretmanager.googleapis.com --project=P).
resource "google_kms_crypto_key_iam_member" "secret_manager_agent" {
  for_each      = var.job.kms_key_name == null ? toset([]) : toset(var.target_project_ids)
  crypto_key_id = var.job.kms_key_name
  role          = "roles/cloudkms.cryptoKeyEncrypterDecrypter"
  member        = "serviceAccount:service-${data.google_project.target[each.key].number}@gcp-sa-secretmanager.iam.gserviceaccount.com"
}
