# The job's image is a prerequisite (prerequisites.tf): it must exist, pinned by digest, before the
# job is created. In another project's repository, the platform's Cloud Run service agent pulls it
# and needs Artifact Registry Reader there
# (https://cloud.google.com/run/docs/deploying#other-projects); in project_id it needs nothing.
locals {
  job_image_elsewhere = local.job_image.project != var.project_id
  run_agent           = "serviceAccount:service-${local.platform_number}@serverless-robot-prod.iam.gserviceaccount.com"
}

resource "google_artifact_registry_repository_iam_member" "run_agent_pulls_job_image" {
  count      = local.job_image_elsewhere ? 1 : 0
  project    = local.job_image.project
  location   = local.job_image.location
  repository = local.job_image.repository
  role       = "roles/artifactregistry.reader"
  member     = local.run_agent
  # Part of the propagation wait (service-agents.tf): Cloud Run checks the image when the job is
  # created, after the wait.
  depends_on = [google_project_service_identity.agents]
}

resource "google_cloud_run_v2_job" "pull_secret" {
  project             = var.project_id
  name                = local.job_name
  location            = var.region
  deletion_protection = false
  labels              = var.labels

  template {
    # One task per execution unless RunJob overrides taskCount (a batch: one task per
    # batch.clusters_per_task clusters). parallelism 0 (unset): "if this field is 0 or unset,
    # the maximum possible value will be used for that execution", and it "Must be <= taskCount"
    # (provider 7.x, resource_cloud_run_v2_job.go), which RunJob's overrides cannot change
    # (https://cloud.google.com/run/docs/reference/rest/v2/Overrides has taskCount and timeout
    # only): any value above 1 here would be above this task_count, and 1 would run a batch's tasks
    # one after another. Through Connect Gateway each task paces itself at the fleet quota divided by
    # CLOUD_RUN_TASK_COUNT, so running every task at once stays under the quota. Written as 0, not
    # left out: the argument is computed, and leaving it out would keep a deployed job's former 1.
    task_count  = 1
    parallelism = 0

    template {
      service_account = google_service_account.job.email
      # A per-cluster run's budget; a batch execution gets batch.task_timeout_seconds as its RunJob
      # override `timeout` (https://cloud.google.com/run/docs/reference/rest/v2/Overrides), so a
      # hung per-cluster run is not left running for a batch's hours.
      timeout = "${var.job.timeout_seconds}s"
      # 0 by default: the adapter retries failed executions with backoff, from the reported status.
      max_retries = var.job.max_retries
      # The Cloud Storage volume (the management clusters' list) is a network file system, a
      # feature of the second generation environment; jobs run in it only ("Cloud Run jobs only use
      # the second generation execution environment":
      # https://cloud.google.com/run/docs/about-execution-environments). Said here so that the
      # mount's requirement is written down where the mount is.
      execution_environment = "EXECUTION_ENVIRONMENT_GEN2"

      # Optional VPC egress (a private GKE control plane or HyperFleet API): Direct VPC when a
      # network is given, else the Serverless VPC Access connector.
      dynamic "vpc_access" {
        for_each = var.network == null ? [] : [var.network]
        content {
          connector = vpc_access.value.network == null ? vpc_access.value.connector : null
          egress    = vpc_access.value.egress
          dynamic "network_interfaces" {
            for_each = vpc_access.value.network == null ? [] : [vpc_access.value]
            content {
              network    = network_interfaces.value.network
              subnetwork = network_interfaces.value.subnetwork
            }
          }
        }
      }

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

        # The management clusters' list (management-clusters-file.tf): MANAGEMENT_CLUSTERS_FILE
        # is the object's path under this directory.
        dynamic "volume_mounts" {
          for_each = local.clusters_files
          content {
            name       = "management-clusters"
            mount_path = local.clusters_file.mount_dir
          }
        }
      }

      # Read-only: the job never writes the list, and an execution that could would change every
      # later execution's targets.
      dynamic "volumes" {
        for_each = local.clusters_files
        content {
          name = "management-clusters"
          gcs {
            bucket    = google_storage_bucket.management_clusters["list"].name
            read_only = true
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

  # The token secret is mounted: the accessor grant must exist before the job is created; so must the
  # management clusters' object and the job's right to read its bucket (an execution started right
  # after the apply mounts it); the image must exist (looked up by digest at plan) and, in another
  # project, be pullable by the Cloud Run service agent.
  depends_on = [
    google_project_service.apis,
    google_secret_manager_secret_iam_member.hyperfleet_token,
    google_storage_bucket_object.management_clusters,
    google_storage_bucket_iam_member.job_reads_management_clusters,
    time_sleep.service_agents,
    data.google_artifact_registry_docker_images.job_image,
  ]
}

# The adapter no longer runs the job: it creates tasks in the launch queue, and the launcher account
# runs the job when a task is dispatched (launch-queue.tf). It still reads what its launches became:
# GetExecution on an execution that has been silent too long, and the execution's tasks (Get/List)
# for a failure's reason (shared/executions/cloud-run-execution-reader.ts), which check
# run.executions.get, run.tasks.get and run.tasks.list
# (https://cloud.google.com/run/docs/reference/iam/permissions). No ListExecutions (it found an
# execution whose RunJob answer was lost; the task's name now does that) and no jobs.get: so a
# custom role with the three, granted on the job only, instead of roles/run.viewer.
resource "google_project_iam_custom_role" "execution_reader" {
  project     = var.project_id
  role_id     = "${replace(var.name_prefix, "-", "_")}_pullSecretExecutionReader_${random_id.adapter_roles.hex}"
  title       = "HyperFleet pull secret execution reader (${var.name_prefix})"
  description = "Lets the adapter read the pull secret job's executions and their tasks (GetExecution, GetTask, ListTasks)."
  permissions = local.custom_role[local.grant["adapter-reads-executions"].customRole]
  depends_on  = [google_project_service.apis]
}

resource "google_cloud_run_v2_job_iam_member" "adapter_reads_executions" {
  project  = var.project_id
  location = var.region
  name     = google_cloud_run_v2_job.pull_secret.name
  role     = google_project_iam_custom_role.execution_reader.id
  member   = "serviceAccount:${google_service_account.adapter.email}"
}

# The reporter reads finished executions and their tasks (the same reader): roles/run.viewer, the
# narrowest predefined role with run.executions.get and run.tasks.get/list, on the job only.
resource "google_cloud_run_v2_job_iam_member" "reads_executions" {
  for_each = {
    reporter = google_service_account.reporter.email
  }
  project  = var.project_id
  location = var.region
  name     = google_cloud_run_v2_job.pull_secret.name
  role     = local.grant["reporter-reads-executions"].role
  member   = "serviceAccount:${each.value}"
}

# No actAs (roles/iam.serviceAccountUser) on the job's service account for the launcher: actAs is
# checked when a job is created or updated with a service identity ("Some operations, such as
# creating or updating a job, require the deployer account to have permissions on the service
# identity resource", https://cloud.google.com/run/docs/configuring/jobs/service-accounts), and
# RunJob checks run.jobs.run and, with overrides, run.jobs.runWithOverrides only
# (https://cloud.google.com/run/docs/reference/rest/v2/projects.locations.jobs/run); overrides
# cannot change the service account.
