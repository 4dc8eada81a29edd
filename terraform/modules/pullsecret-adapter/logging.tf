# Cloud Run writes a system-event audit entry when an execution ends (also after a crash, an OOM
# kill, a timeout or a cancellation, when the job itself cannot publish its result). The sink
# routes this job's entries to the execution-finished topic the reporter subscribes to. A RunJob
# also writes two Data Access entries (DATA_WRITE, enabled in run-job-overrides.tf; v2 RunJob is an
# LRO: "one when the operation starts and another when it ends",
# https://cloud.google.com/run/docs/audit-logging): the logName clause keeps both out, so each
# execution reaches the reporter once (docs/design/job-protocol.md, "What Cloud Run emits for the reporter").
# The system_event entry itself is not on Google's list of audited methods; the reporter reads it
# defensively and alerts on one it cannot read (execution-health.tf).
resource "google_logging_project_sink" "execution_finished" {
  project                = var.project_id
  name                   = "${var.name_prefix}-execution-finished"
  destination            = "pubsub.googleapis.com/${google_pubsub_topic.execution_finished.id}"
  unique_writer_identity = true
  depends_on             = [google_project_service.apis]
  filter = join(" AND ", [
    "resource.type=\"cloud_run_job\"",
    "resource.labels.job_name=\"${local.job_name}\"",
    "logName=\"projects/${var.project_id}/logs/cloudaudit.googleapis.com%2Fsystem_event\"",
    "protoPayload.methodName=\"/Jobs.RunJob\"",
  ])
}

# The sink's writer identity is created with the sink and can be unknown to IAM for a while; the
# provider does not retry a grant to a member that "does not exist", so the grant waits for IAM
# propagation (https://cloud.google.com/iam/docs/access-change-propagation). Only on creation.
resource "time_sleep" "sink_writer_identity" {
  create_duration = "60s"
  triggers = {
    writer_identity = google_logging_project_sink.execution_finished.writer_identity
  }
}

resource "google_pubsub_topic_iam_member" "sink_publishes_finished" {
  project = var.project_id
  topic   = google_pubsub_topic.execution_finished.name
  role    = "roles/pubsub.publisher"
  member  = time_sleep.sink_writer_identity.triggers["writer_identity"]
}
