# Without an organization (or for a first project before the organization role exists): a
# project-level custom role with the same permissions, in the project itself. It can only be
# granted there, so every further project repeats it: at fleet scale use
# modules/pullsecret-tenant-role once and pass its role_id.

locals {
  # one(...[*]) and not [0]: for a folder without role_id no project-level role exists (count = 0),
  # and `[0]` would stop the plan with "Invalid index" before the explanation. null goes on to
  # modules/bindings, whose output precondition says "scope.folder needs role_id" instead (a
  # variable validation cannot compare scope and role_id: cross-variable references need
  # Terraform >= 1.9, this module supports >= 1.5).
  role_id = var.role_id != null ? var.role_id : one(google_project_iam_custom_role.secret_manager[*].id)

  # The list of modules/pullsecret-tenant-role, from the same source (../runtime-grants.json).
  permissions = jsondecode(file("${path.module}/../runtime-grants.json")).customRoles.pullSecretManager
}

# Role ids stay reserved for 7 (+37) days after deletion: the suffix lets a re-apply create anew.
resource "random_id" "role_suffix" {
  count       = local.project_scope && var.role_id == null ? 1 : 0
  byte_length = 3
  keepers = {
    name_prefix = var.name_prefix
  }
}

resource "google_project_iam_custom_role" "secret_manager" {
  count       = local.project_scope && var.role_id == null ? 1 : 0
  project     = var.scope.project
  role_id     = "${replace(var.name_prefix, "-", "_")}_pullSecretManager_${random_id.role_suffix[0].hex}"
  title       = "HyperFleet pull secret manager (${var.name_prefix})"
  description = "What the HyperFleet pull secret job needs on its own hyperfleet-* secrets."
  permissions = local.permissions
}
