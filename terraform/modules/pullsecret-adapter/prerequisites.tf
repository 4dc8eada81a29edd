# What the first apply needs but does not create, looked up at plan so that a missing one is named
# with the command that creates it, instead of failing half-way through the apply with the API's
# words (docs/deployment.md, "Before the first apply").
#
# Each is created outside this module on purpose: Sentinel owns its topic; the token's bytes must
# not pass through Terraform state; the image is built and pushed by the release pipeline and
# pinned by digest.
#
# A lookup must also let `terraform destroy` through once a prerequisite is gone (Sentinel torn
# down first, the image's repository cleaned up). Destroy first refreshes with a normal plan, which
# reads every data source (hashicorp/terraform internal/terraform/context_plan.go, destroyPlan), and
# a data source whose provider read fails stops the destroy there. Conditions do not: in that
# refresh Terraform lowers failed preconditions and postconditions to warnings
# (internal/terraform/node_resource_plan_instance.go: checkRuleSeverity = Warning when
# preDestroyRefresh; commit 3ea704ef81, "Make the pre-destroy refresh a full plan"), while a plan
# or an apply stops on them. So each prerequisite is looked up by a LIST that comes back empty when
# it is missing (no provider error), with a postcondition that names it and the command that
# creates it: an error on plan and apply, nothing on destroy. What no list can look up (Sentinel's
# topic) is read in a `check` block, whose data source errors and failed assertions are warnings
# everywhere (https://developer.hashicorp.com/terraform/language/checks#scoped-data-sources): never
# blocking a destroy, but not stopping the first apply either.
# test/unit/terraform/prerequisite-lookups.test.ts runs all three behaviours through real Terraform.

locals {
  sentinel_topic_project = split("/", local.sentinel_topic_id)[1]
  sentinel_topic_name    = split("/", local.sentinel_topic_id)[3]

  # job.image: REGION-docker.pkg.dev/PROJECT/REPOSITORY/IMAGE[:TAG]@sha256:DIGEST (variables.tf
  # validates the form). The lookup compares the URI without the tag: a digest names the image.
  job_image     = regex("^(?P<location>[a-z0-9-]+)-docker\\.pkg\\.dev/(?P<project>[^/]+)/(?P<repository>[^/]+)/(?P<name>[^:@]+)(?::[^@]+)?@(?P<digest>sha256:[0-9a-f]{64})$", var.job.image)
  job_image_uri = "${local.job_image.location}-docker.pkg.dev/${local.job_image.project}/${local.job_image.repository}/${local.job_image.name}@${local.job_image.digest}"
}

# Sentinel's topic (it publishes; this module only subscribes). The provider has no list of topics,
# and google_pubsub_topic fails its read on a missing topic ("projects/P/topics/T not found",
# data_source_pubsub_topic.go), which as a plain data source would block every destroy after
# Sentinel's. In a check block that failed read is a warning, at this address, on plan, apply and
# destroy alike: the plan names the topic, and an apply that goes on anyway stops at the first
# resource on the topic (the adapter's trigger or push subscription, or the job's Pub/Sub Viewer on
# it) with the API's "Resource not found". Create it with Sentinel's deployment, or
# gcloud pubsub topics create T --project P.
#
# The check is there for its data source. Terraform requires an assertion, and evaluates none while
# the data source's read fails (the failure is the warning); this one only confirms the read found
# the topic the module subscribes to.
check "sentinel_topic" {
  data "google_pubsub_topic" "sentinel" {
    project = local.sentinel_topic_project
    name    = local.sentinel_topic_name
  }

  assert {
    condition     = data.google_pubsub_topic.sentinel.id == local.sentinel_topic_id
    error_message = "sentinel_topic: the lookup of ${local.sentinel_topic_id} returned ${data.google_pubsub_topic.sentinel.id}. Create the topic with Sentinel's deployment, or: gcloud pubsub topics create ${local.sentinel_topic_name} --project ${local.sentinel_topic_project} (docs/deployment.md, \"Before the first apply\")."
  }
}

# The HyperFleet API token secret, with its first version, in project_id (mounted by both functions
# and the job). Listed, not read: its payload never enters Terraform state, and a missing secret is
# an empty list (a failed postcondition), not a failed read.
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

# Its latest version must still hold the token: the functions and the job mount "latest". Read
# without its payload (fetch_secret_data = false: a GET of the version's metadata), and only once
# the secret is known to exist, so that a missing secret gets the message above and a destroy after
# the secret's deletion reads nothing here. "latest" is the most recently created version, whatever
# its state (https://cloud.google.com/secret-manager/docs/reference/rest/v1/projects.secrets.versions/get).
#
# The check is on destroy_time, set once that version is destroyed. The provider's `enabled` cannot
# tell: this data source always sets enabled = true and drops the version's state
# (data_source_secret_manager_secret_version.go, d.Set("enabled", true)), so a postcondition on
# self.enabled could never fail. A DISABLED latest version is not visible here at all; mounting it
# fails at the functions' deployment.
data "google_secret_manager_secret_version" "hyperfleet_token" {
  count             = local.token_secret_exists ? 1 : 0
  project           = var.project_id
  secret            = var.hyperfleet_api.auth_token_secret
  version           = "latest"
  fetch_secret_data = false

  lifecycle {
    postcondition {
      condition     = self.destroy_time == null || self.destroy_time == ""
      error_message = "hyperfleet_api.auth_token_secret: the latest version of secret \"${var.hyperfleet_api.auth_token_secret}\" in project ${var.project_id} (version ${self.version}) is destroyed: the functions and the job mount \"latest\". Add the token as a new version: printf %s \"$HYPERFLEET_TOKEN\" | gcloud secrets versions add ${var.hyperfleet_api.auth_token_secret} --project ${var.project_id} --data-file=-"
    }
  }
}

# The job image's repository, listed by name in its location: a missing repository is an empty list
# (the Artifact Registry API's List with filter name="projects/P/locations/L/repositories/R"; the
# provider builds that filter from name_filter, data_source_artifact_registry_repositories.go), not
# the 404 that listing the images of a missing repository fails with.
data "google_artifact_registry_repositories" "job_image" {
  project     = local.job_image.project
  location    = local.job_image.location
  name_filter = local.job_image.repository

  lifecycle {
    postcondition {
      condition     = contains([for repository in self.repositories : repository.repository_id], local.job_image.repository)
      error_message = "job.image: repository ${local.job_image.location}-docker.pkg.dev/${local.job_image.project}/${local.job_image.repository} does not exist. Create it (gcloud artifacts repositories create ${local.job_image.repository} --repository-format docker --location ${local.job_image.location} --project ${local.job_image.project}), build and push the job image there, then set job.image to the digest the push printed (docs/deployment.md, \"Before the first apply\")."
    }
  }
}

locals {
  job_image_repository_exists = contains(
    [for repository in data.google_artifact_registry_repositories.job_image.repositories : repository.repository_id],
    local.job_image.repository,
  )
}

# The job image, by digest, in that repository; listed only once the repository is known to exist,
# so a destroy after the repository's deletion reads nothing here.
data "google_artifact_registry_docker_images" "job_image" {
  count         = local.job_image_repository_exists ? 1 : 0
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
