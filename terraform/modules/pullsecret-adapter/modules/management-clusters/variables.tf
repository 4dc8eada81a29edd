# Validated here, where Terraform < 1.9 allows it (one variable per rule). Rules that relate two
# variables are output preconditions (outputs.tf).

variable "management_clusters" {
  description = "Management clusters by name (a DNS label, the name placement reports in data.managementCluster). kind: gke (endpoint https://IP with ca_certificate) or connect-gateway (endpoint https://connectgateway.googleapis.com/v1/projects/NUMBER/locations/LOCATION/gkeMemberships/MEMBERSHIP, public CA). project: the cluster's project (gke) or the fleet host project (connect-gateway), where the job is granted access. location with cluster_name (gke) or membership (connect-gateway). namespaces: null (default) binds the job cluster-wide, fenced by the admission policy; a list binds it in those namespaces only."
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
  default  = {}
  nullable = false

  validation {
    condition     = alltrue([for name in keys(var.management_clusters) : can(regex("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", name))])
    error_message = "management_clusters names must be DNS labels (1-63 lowercase letters, digits or '-', starting and ending with a letter or digit), as placement reports them; invalid: ${join(", ", [for name in keys(var.management_clusters) : jsonencode(name) if !can(regex("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", name))])}."
  }
  validation {
    condition     = alltrue([for cluster in values(var.management_clusters) : contains(["gke", "connect-gateway"], cluster.kind)])
    error_message = "management_clusters[*].kind must be gke or connect-gateway; invalid: ${join(", ", [for name, cluster in var.management_clusters : "${name} (${jsonencode(cluster.kind)})" if !contains(["gke", "connect-gateway"], cluster.kind)])}."
  }
  validation {
    condition     = alltrue([for cluster in values(var.management_clusters) : can(regex("^[a-z][a-z0-9-]{4,28}[a-z0-9]$", cluster.project))])
    error_message = "management_clusters[*].project must be a GCP project id (the GKE cluster's project, or the fleet host project for connect-gateway); invalid: ${join(", ", [for name, cluster in var.management_clusters : name if !can(regex("^[a-z][a-z0-9-]{4,28}[a-z0-9]$", cluster.project))])}."
  }
  validation {
    condition     = alltrue([for cluster in values(var.management_clusters) : cluster.kind != "gke" || can(regex("^https://[^/]+$", cluster.endpoint)) && !strcontains(cluster.endpoint, "connectgateway.googleapis.com")])
    error_message = "A gke cluster's endpoint must be its control plane, https://IP or https://HOST with no path (a Connect Gateway URL needs kind = \"connect-gateway\"); invalid: ${join(", ", [for name, cluster in var.management_clusters : name if cluster.kind == "gke" && !(can(regex("^https://[^/]+$", cluster.endpoint)) && !strcontains(cluster.endpoint, "connectgateway.googleapis.com"))])}."
  }
  validation {
    # base64 of a PEM, as GKE gives it (master_auth.cluster_ca_certificate), or the PEM itself.
    condition     = alltrue([for cluster in values(var.management_clusters) : cluster.kind != "gke" || startswith(trimspace(coalesce(cluster.ca_certificate, "-")), "-----BEGIN CERTIFICATE-----") || startswith(try(base64decode(cluster.ca_certificate), ""), "-----BEGIN CERTIFICATE-----")])
    error_message = "A gke cluster needs ca_certificate: its cluster CA as GKE gives it (base64 of the PEM, master_auth[0].cluster_ca_certificate) or the PEM; missing or not a certificate: ${join(", ", [for name, cluster in var.management_clusters : name if cluster.kind == "gke" && !(startswith(trimspace(coalesce(cluster.ca_certificate, "-")), "-----BEGIN CERTIFICATE-----") || startswith(try(base64decode(cluster.ca_certificate), ""), "-----BEGIN CERTIFICATE-----"))])}."
  }
  validation {
    condition     = alltrue([for cluster in values(var.management_clusters) : cluster.kind != "gke" || cluster.cluster_name != null && cluster.membership == null])
    error_message = "A gke cluster needs cluster_name (its GKE name) and no membership; invalid: ${join(", ", [for name, cluster in var.management_clusters : name if cluster.kind == "gke" && !(cluster.cluster_name != null && cluster.membership == null)])}."
  }
  validation {
    condition     = alltrue([for cluster in values(var.management_clusters) : cluster.kind != "connect-gateway" || cluster.membership != null && cluster.ca_certificate == null])
    error_message = "A connect-gateway cluster needs membership (its fleet membership) and no ca_certificate (the gateway has a public CA); invalid: ${join(", ", [for name, cluster in var.management_clusters : name if cluster.kind == "connect-gateway" && !(cluster.membership != null && cluster.ca_certificate == null)])}."
  }
  validation {
    # The regional gateways are REGION-connectgateway.googleapis.com.
    condition = alltrue([for cluster in values(var.management_clusters) : cluster.kind != "connect-gateway" || can(regex(
      "^https://([a-z0-9-]+-)?connectgateway\\.googleapis\\.com/v1/projects/[a-z0-9-]+/locations/${cluster.location}/gkeMemberships/${cluster.membership}$", cluster.endpoint
    ))])
    error_message = "A connect-gateway cluster's endpoint must be https://connectgateway.googleapis.com/v1/projects/PROJECT_NUMBER/locations/LOCATION/gkeMemberships/MEMBERSHIP with its own location and membership; invalid: ${join(", ", [for name, cluster in var.management_clusters : name if cluster.kind == "connect-gateway" && !can(regex("^https://([a-z0-9-]+-)?connectgateway\\.googleapis\\.com/v1/projects/[a-z0-9-]+/locations/${cluster.location}/gkeMemberships/${cluster.membership}$", cluster.endpoint))])}."
  }
  validation {
    condition     = alltrue([for cluster in values(var.management_clusters) : can(regex("^(global|[a-z]+-[a-z]+[0-9]+(-[a-z])?)$", cluster.location))])
    error_message = "management_clusters[*].location must be a region, a zone or global (for a membership); invalid: ${join(", ", [for name, cluster in var.management_clusters : name if !can(regex("^(global|[a-z]+-[a-z]+[0-9]+(-[a-z])?)$", cluster.location))])}."
  }
  validation {
    # Two names for one cluster would make a move between them delete the Secret it just wrote
    # (the job removes ours from the old place after writing the new one).
    condition     = length(distinct([for cluster in values(var.management_clusters) : trimsuffix(lower(cluster.endpoint), "/")])) == length(var.management_clusters)
    error_message = "management_clusters must name each cluster once: these share an endpoint: ${join("; ", [for endpoint, names in { for name, cluster in var.management_clusters : trimsuffix(lower(cluster.endpoint), "/") => name... } : join(", ", names) if length(names) > 1])}."
  }
  validation {
    condition     = alltrue(flatten([for cluster in values(var.management_clusters) : [for namespace in coalesce(cluster.namespaces, []) : can(regex("^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$", namespace))]]))
    error_message = "management_clusters[*].namespaces must be Kubernetes namespace names (DNS labels), or null for cluster-wide fenced rights."
  }
}

variable "default_management_cluster" {
  description = "The cluster used when placement names none (DEFAULT_MANAGEMENT_CLUSTER): a key of management_clusters; null means the only cluster when there is one. With the deprecated management_cluster, the name that cluster goes by (default \"default\")."
  type        = string
  default     = null
  validation {
    condition     = var.default_management_cluster == null || can(regex("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", var.default_management_cluster))
    error_message = "default_management_cluster must be a management cluster name (a DNS label), got ${jsonencode(var.default_management_cluster)}."
  }
}

variable "legacy_management_cluster" {
  description = "The deprecated single management_cluster of the pullsecret-adapter module, or null."
  type = object({
    endpoint          = string
    ca_certificate    = optional(string)
    project_id        = string
    namespaces        = optional(list(string), [])
    cluster_wide_rbac = optional(bool, false)
  })
  default = null
}

variable "job_identity" {
  description = "The job's Google service account email: the Kubernetes user GKE and Connect Gateway authenticate it as."
  type        = string
  nullable    = false
  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{4,28}[a-z0-9]@[a-z][a-z0-9-]{4,28}[a-z0-9]\\.iam\\.gserviceaccount\\.com$", var.job_identity))
    error_message = "job_identity must be a service account email (NAME@PROJECT.iam.gserviceaccount.com)."
  }
}
