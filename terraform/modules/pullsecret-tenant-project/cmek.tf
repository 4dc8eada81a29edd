# CMEK (the platform's job.kms_key_name): Secret Manager encrypts with the key as its own service
# agent in this project, which needs roles/cloudkms.cryptoKeyEncrypterDecrypter on the key
# (https://cloud.google.com/secret-manager/docs/cmek). This module creates the agent (it exists only
# after Secret Manager's first use in the project otherwise) and outputs it; it does NOT grant the
# key. The grant belongs to the key's owner and must outlive this module: removing it on destroy
# would leave every hyperfleet-* secret of the project undecryptable, and a non-authoritative
# _member resource would also remove the same binding if someone else had made it.
resource "google_project_service_identity" "secret_manager" {
  provider = google-beta
  count    = local.project_scope && var.create_secret_manager_agent ? 1 : 0
  project  = var.scope.project
  service  = "secretmanager.googleapis.com"
}

data "google_project" "tenant" {
  count      = local.project_scope && var.create_secret_manager_agent ? 1 : 0
  project_id = var.scope.project
}
