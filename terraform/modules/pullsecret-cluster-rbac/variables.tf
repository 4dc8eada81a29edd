variable "job_service_account" {
  description = "Email of the pull secret job's Google service account: the Kubernetes user GKE authenticates it as (directly or through Connect Gateway)."
  type        = string
  nullable    = false
  validation {
    condition     = can(regex("^[a-z0-9-]+@[a-z0-9-]+\\.iam\\.gserviceaccount\\.com$", var.job_service_account))
    error_message = "job_service_account must be a service account email (NAME@PROJECT.iam.gserviceaccount.com)."
  }
}

variable "namespaces" {
  description = "Namespaces where the job may write Secrets (a RoleBinding each)."
  type        = list(string)
  default     = []
  nullable    = false
  validation {
    condition     = alltrue([for namespace in var.namespaces : can(regex("^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$", namespace))])
    error_message = "namespaces must be Kubernetes namespace names (DNS labels)."
  }
}

variable "cluster_wide" {
  description = "Bind the role cluster-wide (a ClusterRoleBinding, fenced by the admission policy). The default: the clusters-{id} namespaces do not exist when Terraform runs. false: bind only in namespaces."
  type        = bool
  default     = true
  nullable    = false
}

variable "fence" {
  description = "Install the admission fence (ValidatingAdmissionPolicy + binding, Kubernetes 1.30+) that lets the job write only managed-by=hyperfleet dockerconfigjson Secrets it owns. Required with cluster_wide."
  type        = bool
  default     = true
  nullable    = false
}

variable "namespace_layout" {
  description = "The namespace layout: the same value as the pullsecret-adapter module's management_namespace (template `clusters-{id}` by default, or one shared namespace such as `clusters`; migration during a change of layout). The fence admits the job's Secrets only in it."
  type = object({
    template = optional(string, "clusters-{id}")
    migration = optional(object({
      previous = string
      phase    = string
    }))
  })
  default  = {}
  nullable = false
}
