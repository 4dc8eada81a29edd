# Onboarding customer projects: the rights the pull secret system needs in them, as one conditional
# binding per identity on a project OR a folder (every project under a folder at once). Applied by
# whoever creates customer projects (a project factory, or the customer's pipeline), with
# resourcemanager.projects.setIamPolicy (or folders.setIamPolicy) there; the platform module
# pullsecret-adapter holds no per-project resource and needs no rights in customer projects.
# docs/deployment.md, "Onboarding a customer project".

locals {
  project_scope = var.scope.project != null
  folder_scope  = var.scope.folder != null
}

# What is granted to whom, with which condition: decided in a provider-free module that the tests
# apply offline.
module "bindings" {
  source     = "./modules/bindings"
  scope      = var.scope
  identities = var.identities
  job_role   = local.role_id
}

resource "google_project_iam_member" "tenant" {
  for_each = local.project_scope ? module.bindings.bindings : {}
  project  = var.scope.project
  role     = each.value.role
  member   = each.value.member
  condition {
    title       = each.value.title
    description = "Only secrets whose id starts with hyperfleet- (and, for the job, creating them)."
    expression  = each.value.expression
  }
}

resource "google_folder_iam_member" "tenant" {
  for_each = local.folder_scope ? module.bindings.bindings : {}
  folder   = var.scope.folder
  role     = each.value.role
  member   = each.value.member
  condition {
    title       = each.value.title
    description = "Only secrets whose id starts with hyperfleet- (and, for the job, creating them)."
    expression  = each.value.expression
  }
  # A folder without role_id is refused by modules/bindings (its output precondition, "scope.folder
  # needs role_id"), which this resource's for_each waits for: a precondition here could never run
  # first.
}
