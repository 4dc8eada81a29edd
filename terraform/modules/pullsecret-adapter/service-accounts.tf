# One service account per role, each with only the rights its component uses.

resource "google_service_account" "adapter" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-adapter"
  display_name = "Pull secret adapter function"
  description  = "Reads clusters from the HyperFleet API and runs the pull secret job with overrides."
}

resource "google_service_account" "reporter" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-reporter"
  display_name = "Pull secret reporter function"
  description  = "Reads job executions and reports their outcome to the HyperFleet API."
}

resource "google_service_account" "job" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-job"
  display_name = "Pull secret Cloud Run Job"
  description  = "Writes hyperfleet-* pull secrets in Secret Manager and the management cluster."
}

resource "google_service_account" "invoker" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-invoker"
  display_name = "Pub/Sub push invoker"
  description  = "Identity in the OIDC tokens of the push subscriptions; may only invoke the two functions."
}

resource "google_service_account" "reader" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-reader"
  display_name = "Pull secret reader (HyperShift)"
  description  = "Read-only access to hyperfleet-* pull secrets for HyperShift components via Workload Identity."
}
