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
    google_project_iam_member.build,
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
    google_project_iam_member.build,
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
  role      = "roles/secretmanager.secretAccessor"
  member    = "serviceAccount:${each.value}"
}

# The build account of the two functions: what a Cloud Functions build does (read the source
# object, write the image to the gcf-artifacts repository, write build logs).
resource "google_project_iam_member" "build" {
  for_each = toset(["roles/cloudbuild.builds.builder"])
  project  = var.project_id
  role     = each.key
  member   = "serviceAccount:${google_service_account.build.email}"
}
