locals {
  vpc_connector = try(var.network.connector, null)
}

resource "google_storage_bucket" "sources" {
  project                     = var.project_id
  name                        = "${var.project_id}-${var.name_prefix}-sources"
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"
  labels                      = var.labels
  depends_on                  = [google_project_service.apis]
}

# Object names carry the archive's hash, so a new build redeploys the function.
resource "google_storage_bucket_object" "source" {
  for_each = var.function_source_archives
  name     = "${each.key}-${filemd5(each.value)}.zip"
  bucket   = google_storage_bucket.sources.name
  source   = each.value
}

resource "google_cloudfunctions2_function" "adapter" {
  project     = var.project_id
  name        = "${var.name_prefix}-adapter"
  location    = var.region
  description = "Sentinel reconcile events -> preconditions -> pull secret job executions."
  labels      = var.labels

  build_config {
    runtime     = "nodejs22"
    entry_point = "adapter"
    # A dedicated build identity: the default (the Compute Engine or legacy Cloud Build account)
    # is deprecated for builds and far too broad.
    service_account = google_service_account.build.id
    # Our own repository, so that the build account writes images here only (below).
    docker_repository = google_artifact_registry_repository.functions.id
    source {
      storage_source {
        bucket = google_storage_bucket.sources.name
        object = google_storage_bucket_object.source["adapter"].name
      }
    }
  }

  service_config {
    max_instance_count               = var.adapter.max_instances
    min_instance_count               = 0
    available_memory                 = var.adapter.memory
    available_cpu                    = "1"
    max_instance_request_concurrency = var.adapter.concurrency
    timeout_seconds                  = 120
    ingress_settings                 = "ALLOW_INTERNAL_ONLY"
    all_traffic_on_latest_revision   = true
    service_account_email            = google_service_account.adapter.email
    environment_variables            = local.adapter_env
    vpc_connector                    = local.vpc_connector
    vpc_connector_egress_settings    = local.vpc_connector == null ? null : try(var.network.egress, null)

    dynamic "secret_volumes" {
      for_each = var.hyperfleet_api.auth_token_secret == null ? [] : [var.hyperfleet_api.auth_token_secret]
      content {
        mount_path = local.token_dir
        project_id = var.project_id
        secret     = secret_volumes.value
        versions {
          version = "latest"
          path    = "token"
        }
      }
    }
  }

  # The token secret is mounted at deploy time: the revision fails to start if the accessor grant
  # does not exist yet. The build account must hold its role before the build starts.
  depends_on = [
    google_project_service.apis,
    google_secret_manager_secret_iam_member.hyperfleet_token,
    time_sleep.build_grants,
  ]
}

resource "google_cloudfunctions2_function" "reporter" {
  project     = var.project_id
  name        = "${var.name_prefix}-reporter"
  location    = var.region
  description = "Job results and execution-finished events -> pullsecret status in the HyperFleet API."
  labels      = var.labels

  build_config {
    runtime     = "nodejs22"
    entry_point = "reporter"
    # A dedicated build identity: the default (the Compute Engine or legacy Cloud Build account)
    # is deprecated for builds and far too broad.
    service_account = google_service_account.build.id
    # Our own repository, so that the build account writes images here only (below).
    docker_repository = google_artifact_registry_repository.functions.id
    source {
      storage_source {
        bucket = google_storage_bucket.sources.name
        object = google_storage_bucket_object.source["reporter"].name
      }
    }
  }

  service_config {
    max_instance_count               = var.adapter.max_instances
    min_instance_count               = 0
    available_memory                 = var.adapter.memory
    available_cpu                    = "1"
    max_instance_request_concurrency = var.adapter.concurrency
    timeout_seconds                  = 120
    ingress_settings                 = "ALLOW_INTERNAL_ONLY"
    all_traffic_on_latest_revision   = true
    service_account_email            = google_service_account.reporter.email
    environment_variables            = local.reporter_env
    vpc_connector                    = local.vpc_connector
    vpc_connector_egress_settings    = local.vpc_connector == null ? null : try(var.network.egress, null)

    dynamic "secret_volumes" {
      for_each = var.hyperfleet_api.auth_token_secret == null ? [] : [var.hyperfleet_api.auth_token_secret]
      content {
        mount_path = local.token_dir
        project_id = var.project_id
        secret     = secret_volumes.value
        versions {
          version = "latest"
          path    = "token"
        }
      }
    }
  }

  # The token secret is mounted at deploy time: the revision fails to start if the accessor grant
  # does not exist yet. The build account must hold its role before the build starts.
  depends_on = [
    google_project_service.apis,
    google_secret_manager_secret_iam_member.hyperfleet_token,
    time_sleep.build_grants,
  ]
}

# Only the delivery identity may call the functions: no public invoker, ingress internal only.
# Push mode: the one push invoker account (the OIDC identity of the push subscriptions).
# Eventarc mode: each trigger's own account, on its own function only.
resource "google_cloud_run_service_iam_member" "invoker" {
  for_each = local.eventarc ? {} : {
    adapter  = google_cloudfunctions2_function.adapter.name
    reporter = google_cloudfunctions2_function.reporter.name
  }
  project  = var.project_id
  location = var.region
  service  = each.value
  role     = "roles/run.invoker"
  member   = "serviceAccount:${google_service_account.invoker[0].email}"
}

resource "google_cloud_run_service_iam_member" "trigger_invoker" {
  for_each = local.eventarc ? {
    adapter  = google_cloudfunctions2_function.adapter.name
    reporter = google_cloudfunctions2_function.reporter.name
  } : {}
  project  = var.project_id
  location = var.region
  service  = each.value
  role     = "roles/run.invoker"
  member   = "serviceAccount:${google_service_account.trigger[each.key].email}"
}

# The HyperFleet API token secret is readable by the three components that call the API. The
# functions and the job mount it, so they depend on these grants.
resource "google_secret_manager_secret_iam_member" "hyperfleet_token" {
  for_each = var.hyperfleet_api.auth_token_secret == null ? {} : {
    adapter  = google_service_account.adapter.email
    reporter = google_service_account.reporter.email
    job      = google_service_account.job.email
  }
  project   = var.project_id
  secret_id = var.hyperfleet_api.auth_token_secret
  role      = local.grant["components-read-api-token"].role
  member    = "serviceAccount:${each.value}"
  # The secret and its version are looked up first (prerequisites.tf): missing, the plan stops
  # with the command that creates them.
  depends_on = [
    data.google_secret_manager_secrets.hyperfleet_token,
    data.google_secret_manager_secret_version.hyperfleet_token,
  ]
}

# The build account of the two functions: what Google documents a function's build account needs
# (https://cloud.google.com/run/docs/configuring/services/build-service-account: Logs Writer,
# Artifact Registry Writer, Storage Object Admin "for retrieving the function source"), each on the
# narrowest resource that works instead of roles/cloudbuild.builds.builder on the project (which
# could write to every bucket and repository in it):
# - Logs Writer on the project, the only level it can be granted at: the build's logs.
resource "google_project_iam_member" "build_logs" {
  project = var.project_id
  role    = "roles/logging.logWriter"
  member  = "serviceAccount:${google_service_account.build.email}"
}

# - Artifact Registry Writer on the functions' own repository (build_config.docker_repository):
#   the built image and the buildpacks cache.
resource "google_artifact_registry_repository" "functions" {
  project       = var.project_id
  location      = var.region
  repository_id = "${var.name_prefix}-functions"
  format        = "DOCKER"
  description   = "Images of the pull secret adapter and reporter functions (written by their builds)."
  labels        = var.labels
  depends_on    = [google_project_service.apis]
}

resource "google_artifact_registry_repository_iam_member" "build_pushes_images" {
  project    = var.project_id
  location   = google_artifact_registry_repository.functions.location
  repository = google_artifact_registry_repository.functions.name
  role       = "roles/artifactregistry.writer"
  member     = "serviceAccount:${google_service_account.build.email}"
}

# - Reading the source: object read on our sources bucket and on the bucket Cloud Functions copies
#   the source to (gcf-v2-sources-NUMBER-REGION, https://cloud.google.com/functions/docs/building),
#   which does not exist before the first deployment, hence a project binding conditioned on the two
#   bucket names rather than a bucket binding. Storage Object Admin, as the page documents (not
#   narrowed further without a real build to prove it), on those two buckets only.
resource "google_project_iam_member" "build_reads_sources" {
  project = var.project_id
  role    = "roles/storage.objectAdmin"
  member  = "serviceAccount:${google_service_account.build.email}"
  condition {
    title       = "function-sources-only"
    description = "Only the module's sources bucket and Cloud Functions' own sources bucket."
    expression = join(" || ", flatten([
      for bucket in [google_storage_bucket.sources.name, "gcf-v2-sources-${local.platform_number}-${var.region}"] : [
        "resource.name == \"projects/_/buckets/${bucket}\"",
        "resource.name.startsWith(\"projects/_/buckets/${bucket}/\")",
      ]
    ]))
  }
}

# The build account and its grants are new on the first apply and used at once by both builds: the
# builds wait for IAM propagation ("typically within 2 minutes",
# https://cloud.google.com/iam/docs/access-change-propagation). Only when the grants are created.
resource "time_sleep" "build_grants" {
  create_duration = "120s"
  triggers = {
    logs    = google_project_iam_member.build_logs.id
    sources = google_project_iam_member.build_reads_sources.id
    images  = google_artifact_registry_repository_iam_member.build_pushes_images.id
  }
}
