# The daily batched resync (var.batch.resync_schedule): Cloud Scheduler publishes one resync request
# for every cluster to the fleet-requests topic, exactly as `npm run -s fleet -- resync --all`
# does (functions/fleet/requests/fleet-requests.ts), and the adapter launches one batch execution
# for it: a few executions a day for the whole fleet instead of one per cluster (docs/performance.md,
# "Rotation and the batched resync"). Each publish is a new Pub/Sub message, whose id names the
# launch, so a day's request launches once however often Pub/Sub redelivers it.
#
# No grant: a Pub/Sub target publishes as the project's Cloud Scheduler service agent, whose
# Cloud Scheduler Service Agent role (roles/cloudscheduler.serviceAgent, given by Google when the API
# is enabled; "Don't revoke" it, https://cloud.google.com/scheduler/docs/http-target-auth) holds
# pubsub.topics.publish (https://cloud.google.com/iam/docs/roles-permissions/cloudscheduler), and
# the target topic must be in the job's own project (PubsubTarget.topic_name,
# https://cloud.google.com/scheduler/docs/reference/rest/v1/projects.locations.jobs#pubsubtarget).
resource "google_cloud_scheduler_job" "batched_resync" {
  count       = var.batch.resync_schedule == null ? 0 : 1
  project     = var.project_id
  region      = var.region
  name        = "${var.name_prefix}-batched-resync"
  description = "Daily batched resync of every converged cluster: one fleet request to the adapter (HyperFleet pull secret adapter)."
  schedule    = var.batch.resync_schedule
  time_zone   = var.batch.time_zone

  pubsub_target {
    topic_name = google_pubsub_topic.fleet_requests.id
    # shared/batch/batch-request.ts, resyncRequestSchema; the attribute is FLEET_REQUEST_ATTRIBUTE.
    data       = base64encode(jsonencode({ kind = "resync", selector = "all" }))
    attributes = { hyperfleetFleetRequest = "resync" }
  }

  depends_on = [google_project_service.apis]
}
