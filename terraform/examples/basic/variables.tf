variable "alert_notification_channels" {
  description = "Notification channel ids for the alert policies."
  type        = list(string)
  default     = []
}

variable "default_pull_secret_version" {
  description = "Optional default pull secret: projects/P/secrets/S/versions/V."
  type        = string
  default     = null
}

variable "function_source_archives" {
  description = "The zips built by `npm run package`."
  type = object({
    adapter  = string
    reporter = string
  })
  default = {
    adapter  = "../../../build/package/adapter.zip"
    reporter = "../../../build/package/reporter.zip"
  }
}

variable "hyperfleet_api" {
  description = "HyperFleet API base URL and authentication (see the module's variables)."
  type = object({
    base_url          = string
    version           = optional(string, "v1")
    timeout           = optional(string, "10s")
    retry_attempts    = optional(number, 3)
    auth_token_secret = optional(string)
    audience          = optional(string)
  })
}

variable "job" {
  description = "The job image, pinned by digest (REPOSITORY/pull-secret-job:TAG@sha256:DIGEST), and settings (see the module's variables)."
  type = object({
    image                    = string
    cpu                      = optional(string, "1")
    memory                   = optional(string, "512Mi")
    timeout_seconds          = optional(number, 600)
    max_retries              = optional(number, 0)
    on_delete                = optional(string, "delete")
    secret_version_retention = optional(number)
    replication_policy       = optional(string, "automatic")
    kms_key_name             = optional(string)
    log_level                = optional(string, "info")
  })
}

variable "labels" {
  description = "Labels for every resource."
  type        = map(string)
  default     = {}
}

variable "management_cluster" {
  description = "DEPRECATED, use management_clusters: the single management cluster (see the module's variables)."
  type = object({
    endpoint          = string
    ca_certificate    = optional(string)
    project_id        = string
    namespaces        = optional(list(string), [])
    cluster_wide_rbac = optional(bool, false)
  })
  default = null
}

variable "management_clusters" {
  description = "Management clusters by name: GKE at its IP endpoint (with ca_certificate) or DNS-based endpoint (without), or Connect Gateway (see the module's variables and docs/management-clusters.md)."
  type = map(object({
    kind           = string
    endpoint       = string
    ca_certificate = optional(string)
    project        = string
    location       = string
    cluster_name   = optional(string)
    membership     = optional(string)
    namespaces     = optional(list(string))
  }))
  default = {}
}

variable "default_management_cluster" {
  description = "The management cluster used when placement names none (a key of management_clusters)."
  type        = string
  default     = null
}

variable "name_prefix" {
  description = "Prefix of every resource name."
  type        = string
  default     = "pullsecret"
}

variable "project_id" {
  description = "The platform project."
  type        = string
}

variable "region" {
  description = "Region of the functions and the job."
  type        = string
}

variable "sentinel_topic" {
  description = "Sentinel's existing topic."
  type        = string
  default     = "hyperfleet-system-clusters"
}

variable "target_project_ids" {
  description = "Customer projects onboarded from this root (modules/pullsecret-tenant-project per project); at fleet scale leave empty and onboard where projects are created."
  type        = list(string)
  default     = []
}

variable "organization_id" {
  description = "Optional numeric organization id: the job's Secret Manager role is then created once there (modules/pullsecret-tenant-role) instead of once per customer project."
  type        = string
  default     = null
}

variable "tracing_enabled" {
  description = "Export every reconcile's spans to Cloud Trace (see the module's variables)."
  type        = bool
  default     = true
}

variable "tracing_sampler_ratio" {
  description = "The share of new traces sampled, 0 to 1 (see the module's variables)."
  type        = number
  default     = 1
}

variable "workload_identity" {
  description = "Workload Identity for HyperShift's readers (see the module's variables)."
  type = object({
    reader_bindings = optional(map(object({
      namespace       = string
      service_account = string
    })), {})
    gke_workload_pool_project = optional(string)
    federation = optional(object({
      pool_id           = string
      provider_id       = string
      issuer_uri        = string
      allowed_audiences = optional(list(string), [])
    }))
  })
  default = {}
}

variable "delivery" {
  description = "Event delivery: mode (eventarc or push-subscription), the code's retry bound (max_event_age, max_event_failures) and the opt-in attach_dead_letter (see the module's variables)."
  type = object({
    mode                  = optional(string, "eventarc")
    max_event_age         = optional(string)
    max_event_failures    = optional(number, 10)
    budget                = optional(string, "8s")
    attach_dead_letter    = optional(bool, false)
    max_delivery_attempts = optional(number, 5)
    minimum_backoff       = optional(string, "10s")
    maximum_backoff       = optional(string, "600s")
    ack_deadline_seconds  = optional(number, 120)
  })
  default = {}
}

variable "manage_cluster_rbac" {
  description = "Apply the job's Kubernetes RBAC and admission fence to the management clusters with Terraform (cluster-rbac.tf: kubernetes providers, your Google credentials) instead of printing them for kubectl."
  type        = bool
  default     = false
}

variable "network" {
  description = "Optional VPC egress for the functions and the job (see the module's variables)."
  type = object({
    connector  = optional(string)
    network    = optional(string)
    subnetwork = optional(string)
    egress     = optional(string, "PRIVATE_RANGES_ONLY")
  })
  default = null
}
