# One service account per role, each with only the rights its component uses. All wait for the
# IAM API on a fresh project.

resource "google_service_account" "adapter" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-adapter"
  display_name = "Pull secret adapter function"
  description  = "Reads clusters from the HyperFleet API and runs the pull secret job with overrides."
  depends_on   = [google_project_service.apis]
}

resource "google_service_account" "reporter" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-reporter"
  display_name = "Pull secret reporter function"
  description  = "Reads job executions and reports their outcome to the HyperFleet API."
  depends_on   = [google_project_service.apis]
}

resource "google_service_account" "job" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-job"
  display_name = "Pull secret Cloud Run Job"
  description  = "Writes hyperfleet-* pull secrets in Secret Manager and the management cluster."
  depends_on   = [google_project_service.apis]
}

# delivery.mode = push-subscription: the identity in the push subscriptions' OIDC tokens.
resource "google_service_account" "invoker" {
  count        = local.eventarc ? 0 : 1
  project      = var.project_id
  account_id   = "${var.name_prefix}-invoker"
  display_name = "Pub/Sub push invoker"
  description  = "Identity in the OIDC tokens of the push subscriptions; may only invoke the two functions."
  depends_on   = [google_project_service.apis]
}

# delivery.mode = eventarc: one trigger identity per function, holding only run.invoker on it.
resource "google_service_account" "trigger" {
  for_each     = local.eventarc ? toset(["adapter", "reporter"]) : toset([])
  project      = var.project_id
  account_id   = "${var.name_prefix}-trg-${each.key}"
  display_name = "Eventarc trigger of the ${each.key} function"
  description  = "Identity Eventarc uses to deliver events to the ${each.key} function; may only invoke it."
  depends_on   = [google_project_service.apis]
}

resource "google_service_account" "reader" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-reader"
  display_name = "Pull secret reader (HyperShift)"
  description  = "Read-only access to hyperfleet-* pull secrets for HyperShift components via Workload Identity."
  depends_on   = [google_project_service.apis]
}

# Builds the two functions (build_config.service_account): the default build identity is deprecated.
resource "google_service_account" "build" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-build"
  display_name = "Pull secret functions build"
  description  = "Cloud Build identity of the adapter and reporter function builds."
  depends_on   = [google_project_service.apis]
}
