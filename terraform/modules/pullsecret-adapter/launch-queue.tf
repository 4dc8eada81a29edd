# Every launch goes through one Cloud Tasks queue: the adapter creates a named task whose HTTP
# target is RunJob on the job (POST https://run.googleapis.com/v2/JOB:run, with the execution's
# overrides in the body) and whose OAuth token is the launcher's. The queue holds the fleet-wide
# launch rate and concurrency, retries refused calls with backoff, and can be paused
# (docs/deployment.md, "Pausing launches"). Who may do what, each on this queue, this job or the
# launcher account only:
#
#   adapter  -> creates tasks in the queue, reads and deletes them    (cloudtasks.enqueuer + a custom role)
#   adapter  -> actAs on the launcher (to name it in a task's token)  (iam.serviceAccountUser on the launcher)
#   Cloud Tasks service agent -> mints the launcher's token           (its default role, nothing added here)
#   launcher -> RunJob with overrides on the job                      (run.jobsExecutorWithOverrides on the job)

locals {
  launch_queue_name = coalesce(var.launch_queue.name, "${var.name_prefix}-launches")
  launch_queue_id   = "projects/${var.project_id}/locations/${var.region}/queues/${local.launch_queue_name}"
  # One more queue per management cluster (shared/launch-queue/management-cluster-queues.ts names
  # them the same way): NAME-MANAGEMENT_CLUSTER.
  management_cluster_queues = var.launch_queue.per_management_cluster ? toset(keys(var.management_clusters)) : toset([])
}

resource "google_cloud_tasks_queue" "launches" {
  project  = var.project_id
  name     = local.launch_queue_name
  location = var.region

  rate_limits {
    # Operators think per minute (Cloud Run's RunJob quota is per minute); Cloud Tasks per second.
    max_dispatches_per_second = var.launch_queue.rate_per_minute / 60
    max_concurrent_dispatches = var.launch_queue.max_concurrent
  }

  # Cloud Tasks retries every non-2xx answer, so a 429 (the RunJob quota) or a 5xx waits
  # min_backoff, doubling max_doublings times, then max_backoff, until max_attempts: 10, 20, 40, 80,
  # 160, 300, 300 s by default, about 15 minutes, long enough to outlast a per-minute quota window
  # several times over without a queue of refused launches calling RunJob more than once a task
  # every 5 minutes. Finite, so a task refused for good (a 400 or 403) also ends; the adapter
  # deletes the ones it recognises sooner (DeleteTask) and relaunches from the reported status.
  # max_retry_duration stays 0 (no age limit): max_attempts alone bounds a task.
  retry_config {
    max_attempts  = var.launch_queue.max_attempts
    min_backoff   = var.launch_queue.min_backoff
    max_backoff   = var.launch_queue.max_backoff
    max_doublings = var.launch_queue.max_doublings
  }

  # desired_state is left to its default (RUNNING) and never read back from the queue, so an
  # operator's `gcloud tasks queues pause` survives later applies (google provider 7.x,
  # resource_cloud_tasks_queue.go: Read does not set desired_state).
  depends_on = [google_project_service.apis]
}

# Each management cluster's own queue, with the fleet queue's settings: the launches of clusters
# placed there wait in it, so pausing it (fleet pause --management-cluster NAME) holds them alone,
# nothing lost. Each queue dispatches at up to rate_per_minute; together they may ask RunJob for
# more than its per-minute quota, and a refused RunJob (429) waits and is retried by its queue.
resource "google_cloud_tasks_queue" "per_management_cluster" {
  for_each = local.management_cluster_queues
  project  = var.project_id
  name     = "${local.launch_queue_name}-${each.key}"
  location = var.region

  rate_limits {
    max_dispatches_per_second = var.launch_queue.rate_per_minute / 60
    max_concurrent_dispatches = var.launch_queue.max_concurrent
  }

  retry_config {
    max_attempts  = var.launch_queue.max_attempts
    min_backoff   = var.launch_queue.min_backoff
    max_backoff   = var.launch_queue.max_backoff
    max_doublings = var.launch_queue.max_doublings
  }

  lifecycle {
    precondition {
      condition     = length("${local.launch_queue_name}-${each.key}") <= 100
      error_message = "The launch queue of management cluster ${each.key} would be named ${local.launch_queue_name}-${each.key}, over Cloud Tasks' 100 characters: shorten launch_queue.name or the management cluster's name."
    }
  }
  depends_on = [google_project_service.apis]
}

# The launcher: the identity of RunJob when a task is dispatched. Cloud Tasks requires it in the
# queue's project ("The service account must be within the same project as the queue",
# https://cloud.google.com/tasks/docs/reference/rest/v2/OAuthToken).
resource "google_service_account" "launcher" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-launcher"
  display_name = "Pull secret job launcher (Cloud Tasks)"
  description  = "Identity of the launch queue's RunJob calls; may only run the pull secret job, with overrides."
  depends_on   = [google_project_service.apis]
}

# The launcher runs this job, with overrides: RunJob checks run.jobs.run and, with overrides,
# run.jobs.runWithOverrides on the job
# (https://cloud.google.com/run/docs/reference/rest/v2/projects.locations.jobs/run); the narrowest
# predefined role that holds both is Cloud Run Jobs Executor With Overrides
# (https://cloud.google.com/run/docs/reference/iam/roles), granted on the job only. Nothing on the
# job's service account: RunJob does not check actAs, and overrides cannot change the account.
resource "google_cloud_run_v2_job_iam_member" "launcher_runs_job" {
  project  = var.project_id
  location = var.region
  name     = google_cloud_run_v2_job.pull_secret.name
  role     = local.grant["launcher-runs-job"].role
  member   = "serviceAccount:${google_service_account.launcher.email}"
}

# The adapter creates tasks in this queue only: CreateTask checks cloudtasks.tasks.create on the
# queue (https://cloud.google.com/tasks/docs/reference/rest/v2/projects.locations.queues.tasks/create);
# Cloud Tasks Enqueuer is that permission (and fullView, to read back the task it created), the
# narrowest predefined role with it (https://cloud.google.com/iam/docs/roles-permissions/cloudtasks).
resource "google_cloud_tasks_queue_iam_member" "adapter_enqueues" {
  project  = var.project_id
  location = google_cloud_tasks_queue.launches.location
  name     = google_cloud_tasks_queue.launches.name
  role     = local.grant["adapter-enqueues-launches"].role
  member   = "serviceAccount:${google_service_account.adapter.email}"
}

# GetTask (a refused task's last attempt) and DeleteTask (a task refused for good) check
# cloudtasks.tasks.get and cloudtasks.tasks.delete on the task
# (https://cloud.google.com/tasks/docs/reference/rest/v2/projects.locations.queues.tasks/get,
# https://cloud.google.com/tasks/docs/reference/rest/v2/projects.locations.queues.tasks/delete).
# No predefined role holds the two alone: Cloud Tasks Viewer would add listing every task and reading
# the queue, and Task Deleter has only the delete
# (https://cloud.google.com/iam/docs/roles-permissions/cloudtasks). So one custom role with the two,
# granted on this queue only. The id carries a random suffix like the doctor's role (doctor.tf): a
# deleted custom role's id cannot be reused at once, so a destroy and re-apply gets a new one.
resource "random_id" "adapter_roles" {
  byte_length = 3
  keepers = {
    name_prefix = var.name_prefix
  }
}

resource "google_project_iam_custom_role" "launch_tasks" {
  project     = var.project_id
  role_id     = "${replace(var.name_prefix, "-", "_")}_pullSecretLaunchTasks_${random_id.adapter_roles.hex}"
  title       = "HyperFleet pull secret launch tasks (${var.name_prefix})"
  description = "Lets the adapter read and delete the tasks of its launch queue (GetTask, DeleteTask)."
  permissions = local.custom_role[local.grant["adapter-reads-deletes-launch-tasks"].customRole]
  depends_on  = [google_project_service.apis]
}

# The same two grants on each management cluster's queue.
resource "google_cloud_tasks_queue_iam_member" "adapter_enqueues_per_management_cluster" {
  for_each = google_cloud_tasks_queue.per_management_cluster
  project  = var.project_id
  location = each.value.location
  name     = each.value.name
  role     = local.grant["adapter-enqueues-launches"].role
  member   = "serviceAccount:${google_service_account.adapter.email}"
}

resource "google_cloud_tasks_queue_iam_member" "adapter_reads_deletes_tasks_per_management_cluster" {
  for_each = google_cloud_tasks_queue.per_management_cluster
  project  = var.project_id
  location = each.value.location
  name     = each.value.name
  role     = google_project_iam_custom_role.launch_tasks.id
  member   = "serviceAccount:${google_service_account.adapter.email}"
}

# A batch task leaves the clusters of a paused management cluster alone: it reads that queue's
# state, GetQueue, which checks cloudtasks.queues.get on the queue
# (https://cloud.google.com/tasks/docs/reference-access-control). Cloud Tasks Viewer would add
# listing and reading every task (their RunJob bodies), so a custom role with the one permission,
# on the management clusters' queues only.
resource "google_project_iam_custom_role" "queue_state" {
  count       = length(local.management_cluster_queues) > 0 ? 1 : 0
  project     = var.project_id
  role_id     = "${replace(var.name_prefix, "-", "_")}_pullSecretQueueState_${random_id.adapter_roles.hex}"
  title       = "HyperFleet pull secret queue state (${var.name_prefix})"
  description = "Lets the pull secret job read whether a management cluster's launch queue is paused (GetQueue)."
  permissions = local.custom_role[local.grant["job-reads-management-cluster-queues"].customRole]
  depends_on  = [google_project_service.apis]
}

resource "google_cloud_tasks_queue_iam_member" "job_reads_queue_state" {
  for_each = google_cloud_tasks_queue.per_management_cluster
  project  = var.project_id
  location = each.value.location
  name     = each.value.name
  role     = google_project_iam_custom_role.queue_state[0].id
  member   = "serviceAccount:${google_service_account.job.email}"
}

resource "google_cloud_tasks_queue_iam_member" "adapter_reads_deletes_tasks" {
  project  = var.project_id
  location = google_cloud_tasks_queue.launches.location
  name     = google_cloud_tasks_queue.launches.name
  role     = google_project_iam_custom_role.launch_tasks.id
  member   = "serviceAccount:${google_service_account.adapter.email}"
}

# A task with an OAuth token for the launcher may be created only by a caller with
# iam.serviceAccounts.actAs on the launcher ("The caller must have iam.serviceAccounts.actAs
# permission for the service account", https://cloud.google.com/tasks/docs/reference/rest/v2/OAuthToken).
# Service Account User is the predefined role for actAs, granted on the launcher account only
# (https://cloud.google.com/iam/docs/manage-access-service-accounts: access to a single service
# account), not the project: the adapter must not act as the job's or any other account.
resource "google_service_account_iam_member" "adapter_acts_as_launcher" {
  service_account_id = google_service_account.launcher.name
  role               = local.grant["adapter-acts-as-launcher"].role
  member             = "serviceAccount:${google_service_account.adapter.email}"
}

# The Cloud Tasks service agent (service-NUMBER@gcp-sa-cloudtasks.iam.gserviceaccount.com) mints the
# launcher's token when it dispatches a task, with iam.serviceAccounts.getAccessToken from its own
# role, Cloud Tasks Service Agent (roles/cloudtasks.serviceAgent,
# https://cloud.google.com/iam/docs/roles-permissions/cloudtasks), which the agent holds on the
# project by default. Nothing is added here: a grant of our own would be project-wide
# and its destroy would revoke the role from every queue of the project. Do not remove the agent's
# role (docs/deployment.md, "Pausing launches", says how to check it).
