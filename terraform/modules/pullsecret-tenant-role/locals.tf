locals {
  # Also the fallback project-level role of modules/pullsecret-tenant-project (the same list; a test
  # keeps the two equal).
  permissions = [
    "secretmanager.secrets.create",
    "secretmanager.secrets.get",
    "secretmanager.secrets.update",
    "secretmanager.versions.access",
    "secretmanager.versions.add",
    "secretmanager.versions.destroy",
    "secretmanager.versions.disable",
    "secretmanager.versions.list",
  ]
}
