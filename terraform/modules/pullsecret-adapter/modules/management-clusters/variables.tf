# Validated here, where Terraform < 1.9 allows it (one variable per rule). Rules that relate two
# variables are output preconditions (outputs.tf).

variable "management_clusters" {
  description = "Management clusters by name (a DNS label, the name placement reports in data.managementCluster); docs/management-clusters.md. kind = gke: endpoint is the control plane, either its IP endpoint https://IP with ca_certificate (the cluster CA, base64 of the PEM as GKE gives it, or the PEM), or its DNS-based endpoint https://gke-HASH.REGION.gke.goog without ca_certificate (it serves a publicly trusted certificate); another host name takes ca_certificate optionally. kind = connect-gateway: endpoint https://[REGION-]connectgateway.googleapis.com/v1/projects/PROJECT_NUMBER/locations/LOCATION/gkeMemberships/MEMBERSHIP (the fleet host project's number; GKE memberships only; public CA, no ca_certificate). project: the cluster's project (gke) or the fleet host project (connect-gateway), where the job is granted access. location with cluster_name (gke) or membership (connect-gateway). namespaces: null (default) binds the job cluster-wide, fenced by the admission policy; a list binds it in those namespaces only."
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
    # The IP endpoint serves a certificate signed by the cluster's own CA (not publicly trusted):
    # the job can verify it only with that CA.
    condition     = alltrue([for cluster in values(var.management_clusters) : cluster.kind != "gke" || !can(regex("^https://([0-9]{1,3}(\\.[0-9]{1,3}){3}|\\[[0-9A-Fa-f:.]+\\])(:[0-9]+)?/?$", cluster.endpoint)) || cluster.ca_certificate != null])
    error_message = "A gke cluster reached at its IP endpoint (https://IP) needs ca_certificate, the cluster CA its certificate is signed by: base64 of the PEM as GKE gives it (master_auth[0].cluster_ca_certificate) or the PEM. Or use the cluster's DNS-based endpoint (https://gke-HASH.REGION.gke.goog), which needs none. Missing: ${join(", ", [for name, cluster in var.management_clusters : name if cluster.kind == "gke" && can(regex("^https://([0-9]{1,3}(\\.[0-9]{1,3}){3}|\\[[0-9A-Fa-f:.]+\\])(:[0-9]+)?/?$", cluster.endpoint)) && cluster.ca_certificate == null])}."
  }
  validation {
    # The DNS-based endpoint (any *.gke.goog host: the pattern is gke-HASH.REGION.gke.goog, checked
    # loosely) serves a publicly trusted certificate. Given a cluster CA, Node trusts only that CA
    # for the connection, so the handshake would fail.
    condition     = alltrue([for cluster in values(var.management_clusters) : cluster.kind != "gke" || !can(regex("^https://[^/:]+\\.gke\\.goog(:[0-9]+)?/?$", lower(cluster.endpoint))) || cluster.ca_certificate == null])
    error_message = "A gke cluster reached at its DNS-based endpoint (https://*.gke.goog) takes no ca_certificate: that endpoint serves a publicly trusted certificate, and given the cluster CA the job would trust only that CA, so TLS would fail. Remove ca_certificate from: ${join(", ", [for name, cluster in var.management_clusters : name if cluster.kind == "gke" && can(regex("^https://[^/:]+\\.gke\\.goog(:[0-9]+)?/?$", lower(cluster.endpoint))) && cluster.ca_certificate != null])}."
  }
  validation {
    # base64 of a PEM, as GKE gives it (master_auth.cluster_ca_certificate), or the PEM itself.
    condition     = alltrue([for cluster in values(var.management_clusters) : cluster.ca_certificate == null || startswith(trimspace(coalesce(cluster.ca_certificate, "-")), "-----BEGIN CERTIFICATE-----") || startswith(try(base64decode(cluster.ca_certificate), ""), "-----BEGIN CERTIFICATE-----")])
    error_message = "management_clusters[*].ca_certificate must be a certificate: base64 of the PEM as GKE gives it (master_auth[0].cluster_ca_certificate) or the PEM; not a certificate: ${join(", ", [for name, cluster in var.management_clusters : name if cluster.ca_certificate != null && !(startswith(trimspace(coalesce(cluster.ca_certificate, "-")), "-----BEGIN CERTIFICATE-----") || startswith(try(base64decode(cluster.ca_certificate), ""), "-----BEGIN CERTIFICATE-----"))])}."
  }
  validation {
    condition     = alltrue([for cluster in values(var.management_clusters) : cluster.kind != "gke" || cluster.cluster_name != null && cluster.membership == null])
    error_message = "A gke cluster needs cluster_name (its GKE name) and no membership; invalid: ${join(", ", [for name, cluster in var.management_clusters : name if cluster.kind == "gke" && !(cluster.cluster_name != null && cluster.membership == null)])}."
  }
  validation {
    condition     = alltrue([for cluster in values(var.management_clusters) : cluster.kind != "connect-gateway" || cluster.membership != null && cluster.ca_certificate == null])
    error_message = "A connect-gateway cluster needs membership (its fleet membership) and no ca_certificate: the gateway serves a publicly trusted certificate, and given a CA the job would trust only that CA, so TLS would fail; invalid: ${join(", ", [for name, cluster in var.management_clusters : name if cluster.kind == "connect-gateway" && !(cluster.membership != null && cluster.ca_certificate == null)])}."
  }
  validation {
    # The regional gateways are REGION-connectgateway.googleapis.com. The project is the fleet host
    # project's NUMBER, as Google's documentation and `gcloud container fleet memberships
    # get-credentials` write it; only gkeMemberships (GKE clusters) are accepted.
    condition = alltrue([for cluster in values(var.management_clusters) : cluster.kind != "connect-gateway" || can(regex(
      "^https://([a-z0-9-]+-)?connectgateway\\.googleapis\\.com/v1/projects/[0-9]+/locations/${cluster.location}/gkeMemberships/${cluster.membership}$", cluster.endpoint
    ))])
    error_message = "A connect-gateway cluster's endpoint must be https://[REGION-]connectgateway.googleapis.com/v1/projects/PROJECT_NUMBER/locations/LOCATION/gkeMemberships/MEMBERSHIP: the fleet host project by its number, not its id (gcloud projects describe PROJECT --format='value(projectNumber)'), and the entry's own location and membership; invalid: ${join(", ", [for name, cluster in var.management_clusters : name if cluster.kind == "connect-gateway" && !can(regex("^https://([a-z0-9-]+-)?connectgateway\\.googleapis\\.com/v1/projects/[0-9]+/locations/${cluster.location}/gkeMemberships/${cluster.membership}$", cluster.endpoint))])}."
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
  description = "The deprecated single management_cluster of the pullsecret-adapter module, or null. endpoint: a GKE IP endpoint https://IP with ca_certificate, a GKE DNS-based endpoint https://*.gke.goog without it, or a Connect Gateway URL (project number, gkeMemberships) without it; the same rules as management_clusters."
  type = object({
    endpoint          = string
    ca_certificate    = optional(string)
    project_id        = string
    namespaces        = optional(list(string), [])
    cluster_wide_rbac = optional(bool, false)
  })
  default = null

  # The same endpoint rules as management_clusters (`? :`, not `||`: Terraform evaluates both
  # operands of `||`, and an attribute of null is an error).
  validation {
    condition     = var.legacy_management_cluster == null ? true : !can(regex("^https://([0-9]{1,3}(\\.[0-9]{1,3}){3}|\\[[0-9A-Fa-f:.]+\\])(:[0-9]+)?/?$", var.legacy_management_cluster.endpoint)) || var.legacy_management_cluster.ca_certificate != null
    error_message = "management_cluster is reached at its IP endpoint (https://IP) and needs ca_certificate, the cluster CA (base64 of the PEM as GKE gives it, or the PEM); or use the cluster's DNS-based endpoint (https://*.gke.goog), which needs none."
  }
  validation {
    condition     = var.legacy_management_cluster == null ? true : !can(regex("^https://[^/:]+\\.gke\\.goog(:[0-9]+)?/?$", lower(var.legacy_management_cluster.endpoint))) || var.legacy_management_cluster.ca_certificate == null
    error_message = "management_cluster is reached at its DNS-based endpoint (https://*.gke.goog), which serves a publicly trusted certificate: with ca_certificate the job would trust only that CA and TLS would fail. Remove ca_certificate."
  }
  validation {
    condition     = var.legacy_management_cluster == null ? true : var.legacy_management_cluster.ca_certificate == null || startswith(trimspace(coalesce(var.legacy_management_cluster.ca_certificate, "-")), "-----BEGIN CERTIFICATE-----") || startswith(try(base64decode(var.legacy_management_cluster.ca_certificate), ""), "-----BEGIN CERTIFICATE-----")
    error_message = "management_cluster.ca_certificate must be a certificate: base64 of the PEM as GKE gives it (master_auth[0].cluster_ca_certificate) or the PEM."
  }
  validation {
    condition     = var.legacy_management_cluster == null ? true : !strcontains(var.legacy_management_cluster.endpoint, "connectgateway.googleapis.com") || can(regex("^https://([a-z0-9-]+-)?connectgateway\\.googleapis\\.com/v1/projects/[0-9]+/locations/[a-z0-9-]+/gkeMemberships/[a-z0-9-]+$", var.legacy_management_cluster.endpoint)) && var.legacy_management_cluster.ca_certificate == null
    error_message = "management_cluster's Connect Gateway endpoint must be https://[REGION-]connectgateway.googleapis.com/v1/projects/PROJECT_NUMBER/locations/LOCATION/gkeMemberships/MEMBERSHIP (the fleet host project by its number, not its id) with no ca_certificate (the gateway serves a publicly trusted certificate)."
  }
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

variable "namespace_layout" {
  description = "The operator's namespace layout (the root module's management_namespace): the admission fence admits the job's Secrets only in it."
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
