# Google-managed service agents that this module grants roles to, created explicitly. On a new
# project an agent is created on the API's first use, not when the API is enabled, so a grant to it
# (or a trigger that needs it) can fail with "does not exist" or "Permission denied while using the
# Eventarc Service Agent" (hashicorp/terraform-provider-google #25294, #14584). generateServiceIdentity
# (google_project_service_identity, google-beta only) creates the agent and is a no-op when it
# exists: https://cloud.google.com/service-usage/docs/reference/rest/v1beta1/services/generateServiceIdentity

locals {
  platform_number = data.google_project.platform.number

  # Agent emails are fixed by the project number (https://cloud.google.com/iam/docs/service-agents);
  # built here rather than read from the identity resource, whose email the API may leave empty.
  # Every grant to one of them depends on time_sleep.service_agents below.
  pubsub_agent   = "serviceAccount:service-${local.platform_number}@gcp-sa-pubsub.iam.gserviceaccount.com"
  eventarc_agent = "serviceAccount:service-${local.platform_number}@gcp-sa-eventarc.iam.gserviceaccount.com"

  service_agents = toset(concat(
    ["pubsub.googleapis.com"],
    local.eventarc ? ["eventarc.googleapis.com"] : [],
    local.job_image_elsewhere ? ["run.googleapis.com"] : [],
  ))
}

resource "google_project_service_identity" "agents" {
  provider   = google-beta
  for_each   = local.service_agents
  project    = var.project_id
  service    = each.key
  depends_on = [google_project_service.apis]
}

# Eventarc's agent must hold its role before the first trigger is created; generateServiceIdentity
# does not grant it on every project (the workaround in #25294 and Google's Eventarc Terraform
# samples grant roles/eventarc.serviceAgent explicitly). Harmless when it already holds it.
#
# A project-wide grant: destroying this module (or switching delivery.mode to push-subscription)
# revokes it, which would break any other Eventarc trigger of the project. Where the project used
# Eventarc before, set manage_eventarc_agent_role = false: the agent already holds its role.
resource "google_project_iam_member" "eventarc_agent" {
  count      = local.eventarc && var.manage_eventarc_agent_role ? 1 : 0
  project    = var.project_id
  role       = "roles/eventarc.serviceAgent"
  member     = local.eventarc_agent
  depends_on = [google_project_service_identity.agents]
}

# IAM changes take effect "typically within 2 minutes" and occasionally up to 7
# (https://cloud.google.com/iam/docs/access-change-propagation). Waited once, on the first apply
# (time_sleep waits only when it is created): everything that uses an agent or its grants waits here.
resource "time_sleep" "service_agents" {
  create_duration = "120s"
  triggers = {
    agents = join(",", sort(local.service_agents))
  }
  depends_on = [
    google_project_service_identity.agents,
    google_project_iam_member.eventarc_agent,
    google_artifact_registry_repository_iam_member.run_agent_pulls_job_image,
  ]
}
