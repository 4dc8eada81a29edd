# The tenant bindings, decided without a provider: each identity's role and IAM condition. The same
# for a project and a folder binding.
locals {
  # Roles and conditions from the one source of runtime grants (terraform/modules/runtime-grants.json).
  # Its conditions name the secret's id, whatever the project: extract() yields the part after
  # "/secrets/" of a secret or version name (projects/NUMBER/secrets/ID[/versions/V]) and "" for
  # any other resource (https://cloud.google.com/iam/docs/conditions-attribute-reference#extract).
  # One expression fits a folder binding, where the project number varies, and needs no project
  # lookup per plan.
  runtime_grants = jsondecode(file("${path.module}/../../../runtime-grants.json"))
  condition      = local.runtime_grants.conditions
  grant          = local.runtime_grants.grants

  bindings = {
    # The job: its custom role on hyperfleet-* secrets. CreateSecret is checked on the project
    # (Secret Manager cannot condition it on the new secret's id), hence the Project clause: it
    # allows creating a secret of any id and nothing else on it (SECURITY.md).
    job = {
      role       = var.job_role
      member     = "serviceAccount:${var.identities.job}"
      title      = local.condition[local.grant["job-manages-tenant-secrets"].condition].title
      expression = local.condition[local.grant["job-manages-tenant-secrets"].condition].expression
    }
    # The reporter reads the claim annotations of hyperfleet-* secrets: metadata, never payloads
    # (roles/secretmanager.viewer: secrets.get/list, versions.get/list).
    reporter = {
      role       = local.grant["reporter-views-tenant-secrets"].role
      member     = "serviceAccount:${var.identities.reporter}"
      title      = local.condition[local.grant["reporter-views-tenant-secrets"].condition].title
      expression = local.condition[local.grant["reporter-views-tenant-secrets"].condition].expression
    }
    # HyperShift's reader (Workload Identity) accesses hyperfleet-* secret versions, nothing else.
    reader = {
      role       = local.grant["reader-accesses-tenant-secrets"].role
      member     = "serviceAccount:${var.identities.reader}"
      title      = local.condition[local.grant["reader-accesses-tenant-secrets"].condition].title
      expression = local.condition[local.grant["reader-accesses-tenant-secrets"].condition].expression
    }
  }
}

