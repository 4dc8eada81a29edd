variable "organization_id" {
  description = "The organization (numeric id) whose customer projects or folders are onboarded; needs roles/iam.organizationRoleAdmin there to apply."
  type        = string
  nullable    = false
  validation {
    condition     = can(regex("^[0-9]+$", var.organization_id))
    error_message = "organization_id must be the numeric organization id (gcloud organizations list)."
  }
}

variable "name_prefix" {
  description = "The pullsecret-adapter module's name_prefix: the role id starts with it."
  type        = string
  default     = "pullsecret"
  nullable    = false
  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{1,13}[a-z0-9]$", var.name_prefix))
    error_message = "name_prefix must be 3-15 lowercase letters, digits or -, starting with a letter."
  }
}
