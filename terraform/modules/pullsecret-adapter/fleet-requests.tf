# The fleet-requests topic (docs/operations.md, "Rotating the default pull secret"): what makes the adapter launch
# one batch execution for many clusters (functions/adapter/flows/fleet-request-flow.ts). Three
# publishers, each allowed on this topic only:
# - Secret Manager, on every change to the platform default pull secret (a new version is a
#   rotation), once the operator adds this topic to that secret (the output
#   default_pull_secret_notifications_command: the secret is the operator's, not in this state);
# - the fleet operators' `npm run -s fleet -- resync` (fleet-operators.tf);
# - Cloud Scheduler, the daily batched resync (batched-resync.tf).
# Delivered to the adapter like Sentinel's topic: the route `fleet` in pubsub.tf.
resource "google_pubsub_topic" "fleet_requests" {
  project    = var.project_id
  name       = "${var.name_prefix}-fleet-requests"
  labels     = var.labels
  depends_on = [google_project_service.apis]
}

locals {
  # projects/P/secrets/S/versions/V: the secret, and the project it lives in (an id or a number).
  default_secret = var.default_pull_secret_version == null ? null : {
    project = split("/", var.default_pull_secret_version)[1]
    name    = split("/", var.default_pull_secret_version)[3]
  }
  default_secret_in_platform = local.default_secret == null ? false : contains([var.project_id, tostring(local.platform_number)], local.default_secret.project)
  default_secret_number = local.default_secret == null ? null : (
    can(regex("^[0-9]+$", local.default_secret.project)) ? local.default_secret.project :
    local.default_secret_in_platform ? tostring(local.platform_number) : data.google_project.default_secret[0].number
  )
}

# The default secret's project number, when it is another project named by its id.
data "google_project" "default_secret" {
  count      = local.default_secret != null && !local.default_secret_in_platform && !can(regex("^[0-9]+$", try(local.default_secret.project, ""))) ? 1 : 0
  project_id = local.default_secret.project
}

# The agent exists once Secret Manager is used in that project, but a grant to it fails on a
# project where it was never created (service-agents.tf says why this creates it explicitly).
resource "google_project_service_identity" "secret_manager" {
  provider   = google-beta
  count      = local.default_secret == null ? 0 : 1
  project    = local.default_secret.project
  service    = "secretmanager.googleapis.com"
  depends_on = [google_project_service.apis]
}

# "Grant the Secret Manager service agent the Pub/Sub Publisher role" on the topic
# (https://cloud.google.com/secret-manager/docs/event-notifications): roles/pubsub.publisher, on
# this topic only, and only when there is a default pull secret to be notified about.
resource "google_pubsub_topic_iam_member" "secret_manager_publishes_fleet_requests" {
  count      = local.default_secret == null ? 0 : 1
  project    = var.project_id
  topic      = google_pubsub_topic.fleet_requests.name
  role       = "roles/pubsub.publisher"
  member     = local.secret_manager_agent
  depends_on = [time_sleep.service_agents]
}
