locals {
  # Also the fallback project-level role of modules/pullsecret-tenant-project (the same source).
  # The job's custom role, from the one source of runtime grants (../runtime-grants.json). Why each
  # permission: main.tf. UpdateSecret, whatever its update mask: the claim and place annotations,
  # and the publication of a version (alias `current` with its annotation;
  # functions/pull-secret-job/secret-manager/publish-version.ts). Aliases need no permission of
  # their own: Google's "Assign an alias to a secret version" does it with UpdateSecret
  # (https://cloud.google.com/secret-manager/docs/assign-alias-to-secret-version).
  permissions = jsondecode(file("${path.module}/../runtime-grants.json")).customRoles.pullSecretManager
}
