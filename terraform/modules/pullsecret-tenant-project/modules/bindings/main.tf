# The tenant bindings, decided without a provider: each identity's role and IAM condition. The same
# for a project and a folder binding.
locals {
  # The secret's id, whatever the project: extract() yields the part after "/secrets/" of a secret
  # or version name (projects/NUMBER/secrets/ID[/versions/V]) and "" for any other resource
  # (https://cloud.google.com/iam/docs/conditions-attribute-reference#extract). One expression
  # fits a folder binding, where the project number varies, and needs no project lookup per plan.
  own_secret = "resource.name.extract(\"/secrets/{id}\").startsWith(\"hyperfleet-\")"

  bindings = {
    # The job: its custom role on hyperfleet-* secrets. CreateSecret is checked on the project
    # (Secret Manager cannot condition it on the new secret's id), hence the Project clause: it
    # allows creating a secret of any id and nothing else on it (SECURITY.md).
    job = {
      role       = var.job_role
      member     = "serviceAccount:${var.identities.job}"
      title      = "hyperfleet-secrets-only"
      expression = "resource.type == \"cloudresourcemanager.googleapis.com/Project\" || ${local.own_secret}"
    }
    # The reporter reads the claim annotations of hyperfleet-* secrets: metadata, never payloads
    # (roles/secretmanager.viewer: secrets.get/list, versions.get/list).
    reporter = {
      role       = "roles/secretmanager.viewer"
      member     = "serviceAccount:${var.identities.reporter}"
      title      = "hyperfleet-secrets-only"
      expression = local.own_secret
    }
    # HyperShift's reader (Workload Identity) accesses hyperfleet-* secret versions, nothing else.
    reader = {
      role       = "roles/secretmanager.secretAccessor"
      member     = "serviceAccount:${var.identities.reader}"
      title      = "hyperfleet-secrets-only"
      expression = local.own_secret
    }
  }
}

