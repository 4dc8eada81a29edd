variable "scope" {
  description = "Where to grant: exactly one of project (a customer project id) or folder (folders/NUMBER: every project under it, present and future)."
  type = object({
    project = optional(string)
    folder  = optional(string)
  })
  nullable = false
  validation {
    condition     = (var.scope.project == null) != (var.scope.folder == null)
    error_message = "scope must set exactly one of project or folder."
  }
  validation {
    condition     = var.scope.project == null || can(regex("^[a-z][a-z0-9-]{4,28}[a-z0-9]$", var.scope.project))
    error_message = "scope.project must be a project id (6-30 lowercase letters, digits or -)."
  }
  validation {
    condition     = var.scope.folder == null || can(regex("^folders/[0-9]+$", var.scope.folder))
    error_message = "scope.folder must be folders/NUMBER (gcloud resource-manager folders list)."
  }
}

variable "identities" {
  description = "The platform's service account emails: the pullsecret-adapter module's tenant_access output (job, reporter, reader)."
  type = object({
    job      = string
    reporter = string
    reader   = string
  })
  nullable = false
  validation {
    condition     = alltrue([for email in values(var.identities) : can(regex("^[a-z][a-z0-9-]{4,28}[a-z0-9]@[a-z][a-z0-9-]{4,28}[a-z0-9]\\.iam\\.gserviceaccount\\.com$", email))])
    error_message = "identities must be user-managed service account emails (NAME@PROJECT.iam.gserviceaccount.com), as the pullsecret-adapter module's tenant_access output gives them."
  }
}

variable "job_role" {
  description = "The job's custom role: the pullsecret-tenant-role module's role_id (organizations/ORG/roles/ID). Or a project-level custom role (projects/P/roles/ID), for a project scope only. null only for a folder given no role_id, which the bindings output refuses with the explanation."
  type        = string
  # Nullable: the caller passes null for a folder without role_id (no project-level role can exist
  # there), and the output precondition, which sees scope too, explains it. A non-nullable variable
  # would stop at "The given value is null" first.
  validation {
    condition     = var.job_role == null || can(regex("^(organizations/[0-9]+|projects/[^/]+)/roles/[A-Za-z0-9_.]+$", var.job_role))
    error_message = "role_id must be an organization custom role id, organizations/ORG/roles/ID (the pullsecret-tenant-role module's role_id output)."
  }
}
