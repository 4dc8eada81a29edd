# pull-secret doctor (docs/operations.md, "pull-secret doctor") runs as an execution of the job, as the job's
# service account, so that it checks the job's real rights. What it reads beyond those rights is
# granted here, read-only and as narrowly as each service allows. Without these grants the doctor
# reports the checks as SKIP naming the grant, never as failures.

# Eventarc's triggers (GetTrigger: eventarc.triggers.get,
# https://cloud.google.com/eventarc/docs/reference/rest/v1/projects.locations.triggers/get): the
# provider has no per-trigger IAM resource and IAM Conditions cannot name Eventarc resources, so one
# permission in a custom role on the project (roles/eventarc.viewer would add listing triggers,
# channels and providers). It reveals trigger metadata of the platform project, no data.
resource "random_id" "doctor_role" {
  byte_length = 3
  keepers = {
    name_prefix = var.name_prefix
  }
}

resource "google_project_iam_custom_role" "doctor" {
  count       = local.eventarc ? 1 : 0
  project     = var.project_id
  role_id     = "${replace(var.name_prefix, "-", "_")}_pullSecretDoctor_${random_id.doctor_role.hex}"
  title       = "HyperFleet pull secret doctor (${var.name_prefix})"
  description = "Lets pull-secret doctor, run as the job, read the deployment's Eventarc triggers."
  permissions = local.custom_role[local.grant["doctor-reads-triggers"].customRole]
  depends_on  = [google_project_service.apis]
}

resource "google_project_iam_member" "job_reads_triggers" {
  count   = local.eventarc ? 1 : 0
  project = var.project_id
  role    = google_project_iam_custom_role.doctor[0].id
  member  = "serviceAccount:${google_service_account.job.email}"
}

# Sentinel's topic (GetTopic) and, in push mode, the three push subscriptions (GetSubscription):
# Pub/Sub takes grants on the resource itself (https://cloud.google.com/pubsub/docs/access-control);
# roles/pubsub.viewer on one topic or subscription amounts to reading that one.
resource "google_pubsub_topic_iam_member" "job_reads_sentinel_topic" {
  project = local.sentinel_topic_project
  topic   = local.sentinel_topic_name
  role    = local.grant["doctor-reads-sentinel-topic"].role
  member  = "serviceAccount:${google_service_account.job.email}"
}

resource "google_pubsub_subscription_iam_member" "job_reads_push_subscriptions" {
  for_each     = google_pubsub_subscription.push
  project      = var.project_id
  subscription = each.value.name
  role         = local.grant["doctor-reads-push-subscriptions"].role
  member       = "serviceAccount:${google_service_account.job.email}"
}
