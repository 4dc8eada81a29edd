locals {
  # Every runtime identity's roles, custom role permissions and conditions (../runtime-grants.json):
  # the one source the local stack's emulators read too.
  runtime_grants = jsondecode(file("${path.module}/../runtime-grants.json"))
  grant          = local.runtime_grants.grants
  custom_role    = local.runtime_grants.customRoles

  apis = setunion(module.tracing.apis, [
    "artifactregistry.googleapis.com",
    "cloudbuild.googleapis.com",
    "cloudfunctions.googleapis.com",
    # pull-secret doctor: Resource Manager testIamPermissions (needs no permission, only the API).
    "cloudresourcemanager.googleapis.com",
    # The daily batched resync (batched-resync.tf).
    "cloudscheduler.googleapis.com",
    # The launch queue (launch-queue.tf).
    "cloudtasks.googleapis.com",
    "eventarc.googleapis.com",
    "iam.googleapis.com",
    "logging.googleapis.com",
    "monitoring.googleapis.com",
    "pubsub.googleapis.com",
    "run.googleapis.com",
    "secretmanager.googleapis.com",
    "storage.googleapis.com",
  ])

  sentinel_topic_id = startswith(var.sentinel_topic, "projects/") ? var.sentinel_topic : "projects/${var.project_id}/topics/${var.sentinel_topic}"
  job_name          = "${var.name_prefix}-job"
  job_id            = "projects/${var.project_id}/locations/${var.region}/jobs/${local.job_name}"
  eventarc          = var.delivery.mode == "eventarc"

  # The code's own retry bound, read by the adapter and the reporter in both delivery modes: an
  # event older than the age, or seen failing this many times, is acknowledged and logged as
  # retry-bound-exceeded (counted by a log-based metric that alerts). Eventarc's subscription has
  # no dead-letter policy unless delivery.attach_dead_letter adds one, so this is what stops a
  # poison event from being retried for the subscription's whole retention (24 h).
  # Unset max_event_age keeps each function's own default (adapter 30m, reporter 1h).
  delivery_env = merge(
    {
      EVENT_MAX_FAILURES = tostring(var.delivery.max_event_failures)
      # Eventarc gives a delivery 10 s and Terraform cannot change it (provider #17701): each
      # function ends a delivery's work within this budget and leaves the rest to the next one.
      DELIVERY_BUDGET = var.delivery.budget
    },
    var.delivery.max_event_age == null ? {} : { EVENT_MAX_AGE = var.delivery.max_event_age },
  )

  # The HyperFleet API token, when configured, is mounted as a file: the code reads it at most once a minute, and again after a 401 (rotation).
  token_dir  = "/var/secrets/hyperfleet"
  token_path = "${local.token_dir}/token"

  hyperfleet_env = merge(
    {
      HYPERFLEET_API_BASE_URL       = var.hyperfleet_api.base_url
      HYPERFLEET_API_VERSION        = var.hyperfleet_api.version
      HYPERFLEET_API_TIMEOUT        = var.hyperfleet_api.timeout
      HYPERFLEET_API_RETRY_ATTEMPTS = tostring(var.hyperfleet_api.retry_attempts)
      # Tenancy header names are API configuration (server.tenant); sent on every call.
      HYPERFLEET_API_SYSTEM_HEADER = var.hyperfleet_api.system_header
      HYPERFLEET_API_ORG_HEADER    = var.hyperfleet_api.org_header
    },
    var.hyperfleet_api.org == null ? {} : { HYPERFLEET_API_ORG = var.hyperfleet_api.org },
    var.hyperfleet_api.auth_token_secret == null ? {} : { HYPERFLEET_API_AUTH_TOKEN_PATH = local.token_path },
    var.hyperfleet_api.audience == null ? {} : { HYPERFLEET_API_AUDIENCE = var.hyperfleet_api.audience },
  )

  # With the daily batched resync on, the adapter's own per-cluster resync must come later than the
  # batch (which re-applies every converged cluster each period): unset, 36h instead of 24h, so it
  # is only the backstop for a cluster the batch missed (not converged, or a failed task).
  resync_interval = coalesce(var.adapter.resync_interval, var.batch.resync_schedule == null ? "24h" : "36h")

  # The longest a task of this job may run: a batch's (the adapter sends it as the RunJob override
  # `timeout` of a batch execution only, BATCH_TASK_TIMEOUT) or a per-cluster run's (the job's own).
  job_task_timeout_seconds = max(var.job.timeout_seconds, var.batch.task_timeout_seconds)

  adapter_env = merge(local.hyperfleet_env, local.delivery_env, module.tracing.adapter_env, module.namespace_layout.env, {
    PULL_SECRET_JOB         = local.job_id
    RESYNC_INTERVAL         = local.resync_interval
    BATCH_CLUSTERS_PER_TASK = tostring(var.batch.clusters_per_task)
    BATCH_TASK_TIMEOUT      = "${var.batch.task_timeout_seconds}s"
    DRIFT_REPAIR_BACKOFF    = var.adapter.drift_repair_backoff
    # A per-cluster run's budget: past it the adapter warns that the run is overdue (it still waits
    # for Cloud Run, which ends the task at the job's task timeout, possibly the batch's longer one).
    EXECUTION_TIMEOUT                = "${var.job.timeout_seconds * (var.job.max_retries + 1) + 300}s"
    RETRY_BACKOFF_BASE               = var.adapter.retry_backoff_base
    RETRY_BACKOFF_MAX                = var.adapter.retry_backoff_max
    PERMANENT_FAILURE_RETRY_INTERVAL = var.adapter.permanent_failure_retry_interval
    STATUS_HEARTBEAT_INTERVAL        = var.adapter.status_heartbeat_interval
    # Launches are tasks in this queue, dispatched as the launcher (launch-queue.tf): the queue holds
    # the fleet-wide rate, so the adapter keeps none of its own.
    LAUNCH_QUEUE                        = google_cloud_tasks_queue.launches.id
    LAUNCH_QUEUE_PER_MANAGEMENT_CLUSTER = tostring(var.launch_queue.per_management_cluster)
    LAUNCHER_SERVICE_ACCOUNT            = google_service_account.launcher.email
    PULL_SECRET_SPEC_PATH               = var.adapter.pull_secret_spec_path
    PULL_SECRET_ADDITIONAL_SPEC_PATH    = var.adapter.additional_pull_secret_spec_path
    LOG_LEVEL                           = var.adapter.log_level
    LOG_FORMAT                          = "json"
    GOOGLE_CLOUD_PROJECT                = var.project_id
    },
    var.adapter.preconditions_yaml == null ? {} : { PRECONDITIONS = var.adapter.preconditions_yaml },
    var.adapter.resync_spread == null ? {} : { RESYNC_SPREAD = var.adapter.resync_spread },
    var.adapter.drift_reported_condition == null ? {} : { DRIFT_REPORTED_CONDITION = var.adapter.drift_reported_condition },
    var.default_pull_secret_version == null ? {} : { DEFAULT_PULL_SECRET_VERSION = var.default_pull_secret_version },
  )

  reporter_env = merge(local.hyperfleet_env, local.delivery_env, module.tracing.reporter_env, {
    PULL_SECRET_JOB      = local.job_id
    LOG_LEVEL            = var.adapter.log_level
    LOG_FORMAT           = "json"
    GOOGLE_CLOUD_PROJECT = var.project_id
  })

  # Base environment of every execution; the adapter adds the cluster's identifiers as overrides.
  # The management clusters: MANAGEMENT_CLUSTERS_FILE (the mounted list) and DEFAULT_MANAGEMENT_CLUSTER (or, with the
  # deprecated management_cluster, MANAGEMENT_CLUSTER_ENDPOINT and _CA_CERT as before).
  job_env = merge(local.hyperfleet_env, module.management_clusters.job_env, module.tracing.job_env, module.namespace_layout.env, {
    RESULTS_TOPIC = google_pubsub_topic.results.id
    # A batch task leaves the clusters of a paused management cluster alone (its queue's state).
    LAUNCH_QUEUE                        = google_cloud_tasks_queue.launches.id
    LAUNCH_QUEUE_PER_MANAGEMENT_CLUSTER = tostring(var.launch_queue.per_management_cluster)
    ON_DELETE                           = var.job.on_delete
    REPLICATION_POLICY                  = var.job.replication_policy
    SECRET_VERSION_RETENTION            = tostring(var.job.secret_version_retention)
    LOG_LEVEL                           = var.job.log_level
    LOG_FORMAT                          = "json"
    # A delete's tombstone must outlast every apply still running when the cluster was deleted,
    # a batch task's included: the job's task timeout times the attempts, and an hour for calls in flight
    # (functions/pull-secret-job/secret-manager/delete-pull-secret.ts, the tombstone).
    TOMBSTONE_TTL = "${local.job_task_timeout_seconds * (var.job.max_retries + 1) + 3600}s"
    # Where the job runs: its logs' trace field and its spans name this project (GCP_PROJECT_ID,
    # set per execution, is the customer project it writes to).
    GOOGLE_CLOUD_PROJECT = var.project_id
    },
    var.job.kms_key_name == null ? {} : { KMS_KEY_NAME = var.job.kms_key_name },
    length(var.job.allowed_replication_locations) == 0 ? {} : { ALLOWED_REPLICATION_LOCATIONS = join(",", var.job.allowed_replication_locations) },
    var.job.copy_platform_default_to_tenant ? { COPY_PLATFORM_DEFAULT_TO_TENANT = "true" } : {},
    # Read by pull-secret doctor only (a run ignores them): Sentinel's topic and the default pull
    # secret to check.
    { SENTINEL_TOPIC = local.sentinel_topic_id },
    var.default_pull_secret_version == null ? {} : { DEFAULT_PULL_SECRET_VERSION = var.default_pull_secret_version },
  )
}

data "google_project" "platform" {
  project_id = var.project_id
}

# Everything that calls an API on first apply depends on this (service accounts, topics, the sink,
# functions, the job, triggers): a fresh project otherwise races the enablement and fails with
# SERVICE_DISABLED on some of them.
resource "google_project_service" "apis" {
  for_each           = var.enable_apis ? local.apis : toset([])
  project            = var.project_id
  service            = each.key
  disable_on_destroy = false
}
