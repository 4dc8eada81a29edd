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
  # Secret Manager publishes a secret's notifications as the agent of the SECRET's project, which
  # may not be project_id (fleet-requests.tf): created there by google_project_service_identity.secret_manager.
  secret_manager_agent = local.default_secret == null ? null : "serviceAccount:service-${local.default_secret_number}@gcp-sa-secretmanager.iam.gserviceaccount.com"

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

# How long a new agent and its grants take to work: IAM policy changes "typically 2 minutes,
# potentially 7 minutes or longer" (https://cloud.google.com/iam/docs/access-change-propagation);
# for Eventarc, "Permission denied while using the Eventarc Service Agent. If you recently started
# to use Eventarc, it may take a few minutes before all necessary permissions are propagated",
# for which Google's advice is to wait a few minutes, up to 7, and create the resource again
# (https://cloud.google.com/eventarc/advanced/docs/troubleshoot; Eventarc Standard's known issues:
# "there might be a delay in provisioning the Eventarc service agent. This issue can usually be
# resolved by attempting to create the trigger again", https://cloud.google.com/eventarc/docs/issues).
# The provider does not create again: google_eventarc_trigger's create POST has no retry predicate
# (v7.45.0 google/services/eventarc/resource_eventarc_trigger.go), the global ones retry 429, 5xx,
# network and quota errors only (google/transport/error_retry_predicates.go), and
# EventarcChannel403Retry retries the polls of the operation (eventarc_operation.go), not an
# operation that ended in the agent's permission error. So the first apply waits the 7 minutes
# Google gives, once (time_sleep waits only when it is created). Everything that uses an agent or its grants waits here: the triggers, the job (the Cloud
# Run agent reads an image in another project) and the grants to agents. The wait starts right after
# the APIs and agents and runs beside the function builds (120 s of build grants, then 3-6 minutes
# per function) that the triggers wait for anyway, so it adds little to the apply.
resource "time_sleep" "service_agents" {
  create_duration = "420s"
  # The Secret Manager agent joins the list only with a default pull secret, so that a deployment
  # without one keeps its wait (a changed trigger waits the 7 minutes again, once).
  triggers = {
    agents = join(",", sort(concat(tolist(local.service_agents), local.default_secret == null ? [] : ["secretmanager.googleapis.com@${local.default_secret.project}"])))
  }
  depends_on = [
    google_project_service_identity.agents,
    google_project_service_identity.secret_manager,
    google_project_iam_member.eventarc_agent,
    google_artifact_registry_repository_iam_member.run_agent_pulls_job_image,
  ]
}
