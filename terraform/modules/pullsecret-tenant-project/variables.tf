variable "scope" {
  description = "Where to grant (validated in modules/bindings): exactly one of project (a customer project id) or folder (folders/NUMBER: every project under it, present and future)."
  type = object({
    project = optional(string)
    folder  = optional(string)
  })
  nullable = false
}

variable "identities" {
  description = "The platform's service account emails: the pullsecret-adapter module's tenant_access output (job, reporter, reader)."
  type = object({
    job      = string
    reporter = string
    reader   = string
  })
  nullable = false
}

variable "role_id" {
  description = "The job's custom role: the pullsecret-tenant-role module's role_id (organizations/ORG/roles/ID). Unset: a project-level custom role is created in scope.project (not possible for a folder)."
  type        = string
  default     = null
  validation {
    condition     = var.role_id == null || can(regex("^organizations/[0-9]+/roles/[A-Za-z0-9_.]+$", var.role_id))
    error_message = "role_id must be an organization custom role id: organizations/ORG/roles/ID (the pullsecret-tenant-role module's role_id output)."
  }
}

variable "name_prefix" {
  description = "The pullsecret-adapter module's name_prefix (the project-level role's id starts with it)."
  type        = string
  default     = "pullsecret"
  nullable    = false
  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{1,13}[a-z0-9]$", var.name_prefix))
    error_message = "name_prefix must be 3-15 lowercase letters, digits or -, starting with a letter."
  }
}

variable "create_secret_manager_agent" {
  description = "Create the project's Secret Manager service agent and output it (secret_manager_agent), for a CMEK key's owner to grant; project scope only."
  type        = bool
  default     = false
  nullable    = false
}
