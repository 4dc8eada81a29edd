resource "google_artifact_registry_repository" "images" {
  project       = var.project_id
  location      = var.region
  repository_id = var.name_prefix
  format        = "DOCKER"
  description   = "Images of the pull secret job (functions/pull-secret-job/Dockerfile)."
  labels        = var.labels
  depends_on    = [google_project_service.apis]
}

resource "google_cloud_run_v2_job" "pull_secret" {
  project             = var.project_id
  name                = local.job_name
  location            = var.region
  deletion_protection = false
  labels              = var.labels

  template {
    task_count  = 1
    parallelism = 1

    template {
      service_account = google_service_account.job.email
      timeout         = "${var.job.timeout_seconds}s"
      # 0 by default: the adapter retries failed executions with backoff, from the reported status.
      max_retries = var.job.max_retries

      containers {
        image = var.job.image
        args  = ["run-job", "pull-secret"]

        resources {
          limits = {
            cpu    = var.job.cpu
            memory = var.job.memory
          }
        }

        dynamic "env" {
          for_each = local.job_env
          content {
            name  = env.key
            value = env.value
          }
        }

        dynamic "volume_mounts" {
          for_each = var.hyperfleet_api.auth_token_secret == null ? [] : ["hyperfleet-token"]
          content {
            name       = volume_mounts.value
            mount_path = local.token_dir
          }
        }
      }

      dynamic "volumes" {
        for_each = var.hyperfleet_api.auth_token_secret == null ? [] : [var.hyperfleet_api.auth_token_secret]
        content {
          name = "hyperfleet-token"
          secret {
            secret = volumes.value
            items {
              version = "latest"
              path    = "token"
            }
          }
        }
      }
    }
  }

  depends_on = [google_project_service.apis]
}

# The adapter may run this job, with overrides, and read its executions; nothing else.
resource "google_cloud_run_v2_job_iam_member" "adapter_runs_job" {
  project  = var.project_id
  location = var.region
  name     = google_cloud_run_v2_job.pull_secret.name
  role     = "roles/run.jobsExecutorWithOverrides"
  member   = "serviceAccount:${google_service_account.adapter.email}"
}

# Reading this job's executions (run.executions.get/list), the narrowest predefined role that has
# them, granted on the job only: the adapter lists executions to adopt one whose RunJob answer was
# lost and gets an execution that has been silent too long; the reporter reads finished ones.
resource "google_cloud_run_v2_job_iam_member" "reads_executions" {
  for_each = {
    adapter  = google_service_account.adapter.email
    reporter = google_service_account.reporter.email
  }
  project  = var.project_id
  location = var.region
  name     = google_cloud_run_v2_job.pull_secret.name
  role     = "roles/run.viewer"
  member   = "serviceAccount:${each.value}"
}

# Running a job as the job's service account requires actAs on it.
resource "google_service_account_iam_member" "adapter_acts_as_job" {
  service_account_id = google_service_account.job.name
  role               = "roles/iam.serviceAccountUser"
  member             = "serviceAccount:${google_service_account.adapter.email}"
}
