locals {
  # Also the fallback project-level role of modules/pullsecret-tenant-project (the same list; a test
  # keeps the two equal).
  permissions = [
    "secretmanager.secrets.create",
    "secretmanager.secrets.get",
    # UpdateSecret, whatever its update mask: the claim and place annotations, and the publication
    # of a version (alias `current` with its annotation; functions/pull-secret-job/secret-manager/
    # publish-version.ts). Aliases need no permission of their own: Google's "Assign an alias to a
    # secret version" does it with UpdateSecret (https://cloud.google.com/secret-manager/docs/assign-alias-to-secret-version).
    "secretmanager.secrets.update",
    "secretmanager.versions.access",
    "secretmanager.versions.add",
    "secretmanager.versions.destroy",
    "secretmanager.versions.disable",
    "secretmanager.versions.list",
  ]
}
