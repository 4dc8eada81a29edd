output "bindings" {
  description = "The conditional bindings made: identity => role and condition."
  value = {
    for name, binding in module.bindings.bindings : name => {
      role      = binding.role
      member    = binding.member
      condition = binding.expression
    }
  }
}

output "secret_manager_agent" {
  description = "With create_secret_manager_agent: the project's Secret Manager service agent (serviceAccount:...), for the CMEK key's owner to grant roles/cloudkms.cryptoKeyEncrypterDecrypter on job.kms_key_name."
  value       = length(data.google_project.tenant) == 0 ? null : "serviceAccount:service-${data.google_project.tenant[0].number}@gcp-sa-secretmanager.iam.gserviceaccount.com"
  depends_on  = [google_project_service_identity.secret_manager]
}
