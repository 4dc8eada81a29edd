# The job's rights on its own hyperfleet-* secrets in customer projects, as ONE custom role created
# once for the organization, so that onboarding a project is one conditional binding
# (modules/pullsecret-tenant-project) instead of a role per project. A project-level custom role
# can only be granted in its own project; an organization-level one in any project or folder under
# it (https://cloud.google.com/iam/docs/understanding-custom-roles#custom_role_levels).
#
# Exactly the calls the job makes (functions/pull-secret-job/secret-manager/google-secret-store.ts, annotation-cas.ts):
#   GetSecret (read the claim and labels)      secrets.get     UpdateSecret (claim annotations,  secrets.update
#   CreateSecret (also a delete's tombstone)   secrets.create    a delete's tombstone ttl)
#   AccessSecretVersion (compare payload)      versions.access AddSecretVersion                   versions.add
#   ListSecretVersions (retention, retain)     versions.list   DestroySecretVersion (retention)   versions.destroy
#   DisableSecretVersion (on_delete = retain)  versions.disable
# Never secrets.list, never getIamPolicy/setIamPolicy.

# Custom role ids stay reserved for 7 (+37) days after deletion
# (https://cloud.google.com/iam/docs/creating-custom-roles#deleting-custom-role): a random suffix
# lets a destroy and re-apply (or a second platform in the same organization) create a new one.
resource "random_id" "suffix" {
  byte_length = 3
  keepers = {
    name_prefix = var.name_prefix
  }
}

resource "google_organization_iam_custom_role" "secret_manager" {
  org_id      = var.organization_id
  role_id     = "${replace(var.name_prefix, "-", "_")}_pullSecretManager_${random_id.suffix.hex}"
  title       = "HyperFleet pull secret manager (${var.name_prefix})"
  description = "What the HyperFleet pull secret job needs on its own hyperfleet-* secrets; granted per customer project or folder with a name condition."
  permissions = local.permissions
}
