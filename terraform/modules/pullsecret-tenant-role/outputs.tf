output "role_id" {
  description = "The custom role's full id (organizations/ORG/roles/ID): pass it as role_id to every pullsecret-tenant-project call."
  value       = google_organization_iam_custom_role.secret_manager.name
}

output "permissions" {
  description = "The permissions the role holds."
  value       = google_organization_iam_custom_role.secret_manager.permissions
}
