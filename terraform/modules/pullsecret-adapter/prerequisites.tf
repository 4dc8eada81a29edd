# What the first apply needs but does not create, looked up at plan so that a missing one stops the
# plan naming it and the command that creates it, instead of failing half-way through the apply
# with the API's words (docs/deployment.md, "Before the first apply").
#
# Each is created outside this module on purpose: Sentinel owns its topic; the token's bytes must
# not pass through Terraform state; the image is built and pushed by the release pipeline and
# pinned by digest.

locals {
  sentinel_topic_project = split("/", local.sentinel_topic_id)[1]
  sentinel_topic_name    = split("/", local.sentinel_topic_id)[3]

  # job.image: REGION-docker.pkg.dev/PROJECT/REPOSITORY/IMAGE[:TAG]@sha256:DIGEST (variables.tf
  # validates the form). The lookup compares the URI without the tag: a digest names the image.
  job_image     = regex("^(?P<location>[a-z0-9-]+)-docker\\.pkg\\.dev/(?P<project>[^/]+)/(?P<repository>[^/]+)/(?P<name>[^:@]+)(?::[^@]+)?@(?P<digest>sha256:[0-9a-f]{64})$", var.job.image)
  job_image_uri = "${local.job_image.location}-docker.pkg.dev/${local.job_image.project}/${local.job_image.repository}/${local.job_image.name}@${local.job_image.digest}"
}

# Sentinel's topic (it publishes; this module only subscribes). Not found stops the plan with
# "projects/P/topics/T not found" at this address; create it with Sentinel's deployment, or
# gcloud pubsub topics create T --project P.
data "google_pubsub_topic" "sentinel" {
  project = local.sentinel_topic_project
  name    = local.sentinel_topic_name
}

# The HyperFleet API token secret, with its first version, in project_id (mounted by both functions
# and the job). Listed, not read: its payload never enters Terraform state.
data "google_secret_manager_secrets" "hyperfleet_token" {
  count   = var.hyperfleet_api.auth_token_secret == null ? 0 : 1
  project = var.project_id
  filter  = "name:${var.hyperfleet_api.auth_token_secret}"

  lifecycle {
    postcondition {
      condition     = contains([for secret in self.secrets : secret.secret_id], var.hyperfleet_api.auth_token_secret)
      error_message = "hyperfleet_api.auth_token_secret: secret \"${var.hyperfleet_api.auth_token_secret}\" does not exist in project ${var.project_id}. Create it with the token as its first version: printf %s \"$HYPERFLEET_TOKEN\" | gcloud secrets create ${var.hyperfleet_api.auth_token_secret} --project ${var.project_id} --replication-policy automatic --data-file=- (docs/deployment.md, \"Before the first apply\")."
    }
  }
}

locals {
  # Known at plan (the list is read then): the version lookup below runs only for an existing secret.
  token_secret_exists = contains(
    flatten([for listed in data.google_secret_manager_secrets.hyperfleet_token : [for secret in listed.secrets : secret.secret_id]]),
    coalesce(var.hyperfleet_api.auth_token_secret, "-"),
  )
}

# Its latest version must exist and be enabled: the functions and the job mount "latest". Read
# without its payload (fetch_secret_data = false: a GET of the version's metadata), and only once
# the secret is known to exist, so that a missing secret gets the message above.
data "google_secret_manager_secret_version" "hyperfleet_token" {
  count             = local.token_secret_exists ? 1 : 0
  project           = var.project_id
  secret            = var.hyperfleet_api.auth_token_secret
  version           = "latest"
  fetch_secret_data = false

  lifecycle {
    postcondition {
      condition     = self.enabled
      error_message = "hyperfleet_api.auth_token_secret: the latest version of secret \"${var.hyperfleet_api.auth_token_secret}\" in project ${var.project_id} is not enabled. Add the token as a new version: printf %s \"$HYPERFLEET_TOKEN\" | gcloud secrets versions add ${var.hyperfleet_api.auth_token_secret} --project ${var.project_id} --data-file=-"
    }
  }
}

# The job image, by digest, in its Artifact Registry repository (a missing repository stops the
# plan here with "Error listing Artifact Registry Docker images ... 404").
data "google_artifact_registry_docker_images" "job_image" {
  project       = local.job_image.project
  location      = local.job_image.location
  repository_id = local.job_image.repository

  lifecycle {
    postcondition {
      condition     = contains([for image in self.docker_images : image.self_link], local.job_image_uri)
      error_message = "job.image: ${local.job_image_uri} is not in repository ${local.job_image.location}-docker.pkg.dev/${local.job_image.project}/${local.job_image.repository}. Build and push it first (docker build -f functions/pull-secret-job/Dockerfile -t IMAGE:VERSION . && docker push IMAGE:VERSION, IMAGE being ${local.job_image.location}-docker.pkg.dev/${local.job_image.project}/${local.job_image.repository}/${local.job_image.name}), then set job.image to the digest the push printed (docs/deployment.md, \"Before the first apply\")."
    }
  }
}
