variable "adapter" {
  description = "Adapter function settings: decision timings (durations like 30s, 6h), scaling and optional CEL preconditions (YAML list of {name, expression, message}). resync_interval (RESYNC_INTERVAL; unset: 36h with the daily batched resync on, so the batch always comes first, else 24h: the backstop for drift nobody reports) and resync_spread (RESYNC_SPREAD, unset: a quarter of it); drift_reported_condition (DRIFT_REPORTED_CONDITION, unset: the adapter's default CEL) and drift_repair_backoff (DRIFT_REPAIR_BACKOFF): see docs/configuration.md. launch_settle_interval and launch_rate_per_minute are removed (the launch queue replaces them: launch_queue)."
  type = object({
    resync_interval                  = optional(string)
    resync_spread                    = optional(string)
    drift_reported_condition         = optional(string)
    drift_repair_backoff             = optional(string, "5m")
    retry_backoff_base               = optional(string, "30s")
    retry_backoff_max                = optional(string, "30m")
    permanent_failure_retry_interval = optional(string, "1h")
    status_heartbeat_interval        = optional(string, "5m")
    # Removed: set, the plan stops saying where the setting went (validations below).
    launch_settle_interval           = optional(string)
    launch_rate_per_minute           = optional(number)
    preconditions_yaml               = optional(string)
    pull_secret_spec_path            = optional(string, "spec.pullSecret.data")
    additional_pull_secret_spec_path = optional(string, "spec.pullSecret.additional")
    max_instances                    = optional(number, 10)
    concurrency                      = optional(number, 80)
    memory                           = optional(string, "512Mi")
    log_level                        = optional(string, "info")
  })
  default  = {}
  nullable = false
  validation {
    condition     = var.adapter.launch_settle_interval == null
    error_message = "adapter.launch_settle_interval is no longer read: launches go through the Cloud Tasks queue launch_queue, whose named tasks let only one of several duplicate launches through. Remove adapter.launch_settle_interval from the module call."
  }
  validation {
    condition     = var.adapter.launch_rate_per_minute == null
    error_message = "adapter.launch_rate_per_minute moved to launch_queue.rate_per_minute (the Cloud Tasks queue now holds the fleet-wide launch rate; default 120, and 0 is no longer accepted). Set launch_queue = { rate_per_minute = N } instead and remove adapter.launch_rate_per_minute."
  }
  validation {
    condition     = contains(["debug", "info", "warn", "error"], var.adapter.log_level)
    error_message = "adapter.log_level must be debug, info, warn or error."
  }
  validation {
    condition     = var.adapter.concurrency >= 1 && var.adapter.concurrency <= 1000
    error_message = "adapter.concurrency must be between 1 and 1000 requests per instance."
  }
  validation {
    condition     = var.adapter.max_instances >= 1 && var.adapter.max_instances <= 1000
    error_message = "adapter.max_instances must be between 1 and 1000."
  }
  validation {
    condition     = can(regex("^[0-9]+(Mi|Gi)$", var.adapter.memory))
    error_message = "adapter.memory must be a size like 512Mi or 1Gi."
  }
}

variable "alert_notification_channels" {
  description = "Notification channel ids (projects/P/notificationChannels/N) the alert policies notify."
  type        = list(string)
  default     = []
  nullable    = false
}

variable "batch" {
  description = "Batch executions (one Cloud Run Job execution for many clusters: a rotation of the default pull secret, `npm run -s fleet -- resync`, the daily batched resync; docs/operations.md, \"Rotating the default pull secret\"). resync_schedule (\"17 3 * * *\"): when Cloud Scheduler asks for the daily batched resync of every converged cluster (unix-cron), in time_zone (Etc/UTC); null turns it off (the adapter's per-cluster resync every 24h is then the backstop). clusters_per_task (500, BATCH_CLUSTERS_PER_TASK): clusters per task of a batch execution (tasks = clusters / this, at most 10,000). task_timeout_seconds (7200): how long one batch task may run; sent as a batch execution's RunJob override timeout, BATCH_TASK_TIMEOUT; per-cluster runs keep job.timeout_seconds (docs/performance.md, \"Rotation and the batched resync\": 500 clusters take 1-2 minutes reached directly, up to about 90 through Connect Gateway at 100,000 clusters)."
  type = object({
    resync_schedule      = optional(string, "17 3 * * *")
    time_zone            = optional(string, "Etc/UTC")
    clusters_per_task    = optional(number, 500)
    task_timeout_seconds = optional(number, 7200)
  })
  default  = {}
  nullable = false
  validation {
    # Five unix-cron fields (https://cloud.google.com/scheduler/docs/configuring/cron-job-schedules).
    condition     = var.batch.resync_schedule == null ? true : can(regex("^\\S+( \\S+){4}$", var.batch.resync_schedule))
    error_message = "batch.resync_schedule must be a unix-cron schedule of five fields such as \"17 3 * * *\" (daily at 03:17), or null to turn the daily batched resync off."
  }
  validation {
    condition     = can(regex("^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$", var.batch.time_zone))
    error_message = "batch.time_zone must be a tz database name such as Etc/UTC or Europe/Paris."
  }
  validation {
    condition     = var.batch.clusters_per_task >= 100 && var.batch.clusters_per_task <= 10000 && floor(var.batch.clusters_per_task) == var.batch.clusters_per_task
    error_message = "batch.clusters_per_task must be a whole number from 100 to 10000 (a task takes whole pages of the cluster list, 100 clusters each; about 500 keeps a task to minutes and 100,000 clusters to 200 tasks)."
  }
  validation {
    condition     = var.batch.task_timeout_seconds >= 60 && var.batch.task_timeout_seconds <= 86400 && floor(var.batch.task_timeout_seconds) == var.batch.task_timeout_seconds
    error_message = "batch.task_timeout_seconds must be a whole number from 60 to 86400 (Cloud Run's task timeout limit is 24 h)."
  }
}

variable "default_pull_secret_version" {
  description = "Secret Manager version (projects/P/secrets/S/versions/V) used when a cluster has no pull secret in its spec; null to require one in every spec. With versions/latest, adding a version rotates the fleet once the secret notifies the fleet-requests topic (output default_pull_secret_notifications_command; the Secret Manager service agent of the secret's project is granted publish on that topic); a numbered version pins the fleet to it and new versions are ignored."
  type        = string
  default     = null
  validation {
    condition     = var.default_pull_secret_version == null || can(regex("^projects/[^/]+/secrets/[^/]+/versions/[^/]+$", var.default_pull_secret_version))
    error_message = "default_pull_secret_version must look like projects/PROJECT/secrets/SECRET/versions/VERSION."
  }
}

variable "delivery" {
  description = "How events reach the functions. mode: eventarc (Eventarc triggers, the default) or push-subscription (Pub/Sub push subscriptions with dead-letter topics). max_event_age (unset: the adapter's 30m and the reporter's 1h) / max_event_failures: the code's own retry bound (an event older than the age, or seen failing that many times in an instance, is acknowledged and logged as retry-bound-exceeded). budget: how long one delivery may work before it answers (DELIVERY_BUDGET, default 8s: Eventarc gives a delivery 10 s, a later answer is redelivered while the first still runs); what does not fit is left to the next delivery. attach_dead_letter: eventarc mode only, attach the dead-letter topics to the triggers' subscriptions with gcloud (see docs/deployment.md). max_delivery_attempts, minimum_backoff, maximum_backoff, ack_deadline_seconds: the push subscriptions (and the attached dead-letter policy)."
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
  default  = {}
  nullable = false
  validation {
    condition     = contains(["eventarc", "push-subscription"], var.delivery.mode)
    error_message = "delivery.mode must be eventarc or push-subscription."
  }
  validation {
    condition     = var.delivery.max_event_age == null || can(regex("^[0-9]+(s|m|h)$", var.delivery.max_event_age))
    error_message = "delivery.max_event_age must be a duration like 30m, 1h or 3600s."
  }
  validation {
    condition     = var.delivery.max_event_failures >= 1 && var.delivery.max_event_failures <= 1000
    error_message = "delivery.max_event_failures must be between 1 and 1000."
  }
  validation {
    condition     = !var.delivery.attach_dead_letter || var.delivery.mode == "eventarc"
    error_message = "delivery.attach_dead_letter applies to delivery.mode = eventarc only (push subscriptions always have their dead-letter policy)."
  }
  validation {
    condition     = var.delivery.max_delivery_attempts >= 5 && var.delivery.max_delivery_attempts <= 100
    error_message = "delivery.max_delivery_attempts must be between 5 and 100 (Pub/Sub's limits)."
  }
  validation {
    condition     = var.delivery.ack_deadline_seconds >= 10 && var.delivery.ack_deadline_seconds <= 600
    error_message = "delivery.ack_deadline_seconds must be between 10 and 600 (Pub/Sub's limits)."
  }
  validation {
    condition     = can(regex("^[0-9]+(ms|s)$", var.delivery.budget))
    error_message = "delivery.budget must be a duration in s or ms, such as 8s (keep it under Eventarc's 10 s in eventarc mode)."
  }
}

variable "enable_apis" {
  description = "Enable the Google APIs the system needs in project_id and, when a connect-gateway cluster is configured, connectgateway.googleapis.com and gkehub.googleapis.com in its fleet host project (set false when they are managed elsewhere)."
  type        = bool
  default     = true
  nullable    = false
}

variable "function_source_archives" {
  description = "Paths of the zip archives built by `npm run package` (build/package/adapter.zip and reporter.zip)."
  type = object({
    adapter  = string
    reporter = string
  })
  nullable = false
  validation {
    condition     = endswith(var.function_source_archives.adapter, ".zip") && endswith(var.function_source_archives.reporter, ".zip")
    error_message = "function_source_archives must point at the .zip files built by `npm run package`."
  }
}

variable "hyperfleet_api" {
  description = "How the functions and the job reach the HyperFleet API. auth_token_secret: a Secret Manager secret id in project_id holding a bearer token (mounted as a file, read at most once a minute and again after a 401, so a rotated token is picked up); audience: send a Google ID token instead. system_header / org_header: the API's tenancy header names (none sends no tenancy header); org: call as this tenant instead of as a system component."
  type = object({
    base_url          = string
    version           = optional(string, "v1")
    timeout           = optional(string, "10s")
    retry_attempts    = optional(number, 3)
    auth_token_secret = optional(string)
    audience          = optional(string)
    system_header     = optional(string, "X-HyperFleet-System")
    org_header        = optional(string, "X-HyperFleet-Org")
    org               = optional(string)
  })
  nullable = false
  validation {
    condition     = can(regex("^https://[^/]", var.hyperfleet_api.base_url))
    error_message = "hyperfleet_api.base_url must be an https:// URL, e.g. https://hyperfleet-api.example.com: the API token and pull secrets travel on it (plain http is for the local stack's loopback API only)."
  }
  validation {
    condition     = var.hyperfleet_api.org == null || can(regex("^[A-Za-z0-9._-]{1,63}$", var.hyperfleet_api.org))
    error_message = "hyperfleet_api.org must be 1-63 letters, digits, \".\", \"_\" or \"-\" (the API's rule for tenant values)."
  }
  validation {
    condition     = var.hyperfleet_api.auth_token_secret == null || var.hyperfleet_api.audience == null
    error_message = "Set hyperfleet_api.auth_token_secret or hyperfleet_api.audience, not both."
  }
}

variable "job" {
  description = "The pull secret Cloud Run Job: image (built from functions/pull-secret-job/Dockerfile, pinned by digest: REPOSITORY/pull-secret-job[:TAG]@sha256:DIGEST), resources, timeout_seconds (600: a per-cluster run's budget, EXECUTION_TIMEOUT; the job's task timeout is the larger of it and batch.task_timeout_seconds) and retries, and Secret Manager behaviour. secret_version_retention (1): versions kept per secret, older ones destroyed when one is added; 0 keeps every version, each billed (docs/configuration.md, \"Secret Manager versions\"). copy_platform_default_to_tenant: also store default_pull_secret_version's bytes in each tenant project's secret, where the customer can read them (off: they go to the management cluster only; see docs/design/job-protocol.md, \"What the job writes\"). replication_policy (automatic) and kms_key_name: the replication of every new secret whose cluster asks for none. allowed_replication_locations ([]): the regions a cluster spec may ask its secret to be replicated to (spec.platform.gcp.secretReplication.locations, user-managed replication); empty refuses every such request with InvalidReplication; with kms_key_name, the key must name {location} (docs/configuration.md, \"Per-cluster replication\")."
  type = object({
    image                    = string
    cpu                      = optional(string, "1")
    memory                   = optional(string, "512Mi")
    timeout_seconds          = optional(number, 600)
    max_retries              = optional(number, 0)
    on_delete                = optional(string, "delete")
    secret_version_retention = optional(number, 1)
    replication_policy       = optional(string, "automatic")
    kms_key_name             = optional(string)
    log_level                = optional(string, "info")
    # Opt-in: the platform default is a platform credential; off, tenants never receive it.
    copy_platform_default_to_tenant = optional(bool, false)
    # Per-cluster data residency: the regions a cluster spec may ask for (none: no cluster may).
    allowed_replication_locations = optional(list(string), [])
  })
  nullable = false
  validation {
    # The module looks the image up in its repository at plan (prerequisites.tf).
    condition     = can(regex("^[a-z0-9-]+-docker\\.pkg\\.dev/[^/]+/[^/]+/[^:@]+(:[^@]+)?@sha256:[0-9a-f]{64}$", var.job.image))
    error_message = "job.image must be an Artifact Registry Docker image: REGION-docker.pkg.dev/PROJECT/REPOSITORY/pull-secret-job[:TAG]@sha256:DIGEST (docs/deployment.md, \"Before the first apply\")."
  }
  validation {
    # A tag can be moved to other code after review; a digest names these bytes only.
    condition     = can(regex("@sha256:[0-9a-f]{64}$", var.job.image))
    error_message = "job.image must be pinned by digest: REPOSITORY/pull-secret-job[:TAG]@sha256:<64 lowercase hex digits> (a tag can be moved to other code). After docker push, docker inspect --format='{{index .RepoDigests 0}}' REPOSITORY/pull-secret-job:TAG prints it (or gcloud artifacts docker images describe REPOSITORY/pull-secret-job:TAG); see docs/deployment.md."
  }
  validation {
    condition     = contains(["delete", "retain"], var.job.on_delete)
    error_message = "job.on_delete must be delete or retain."
  }
  validation {
    # 1 by default: each kept version is billed monthly (docs/configuration.md, "Secret Manager versions").
    condition     = var.job.secret_version_retention >= 0 && floor(var.job.secret_version_retention) == var.job.secret_version_retention
    error_message = "job.secret_version_retention must be a whole number: the versions kept per secret (0 keeps every version, each billed)."
  }
  validation {
    condition     = can(regex("^[0-9]+(Mi|Gi)$", var.job.memory)) && can(regex("^([1248]|[0-9]+m)$", var.job.cpu))
    error_message = "job.memory must be a size like 512Mi or 2Gi, and job.cpu 1, 2, 4, 8 or millicores like 500m."
  }
  validation {
    condition     = var.job.timeout_seconds >= 60 && var.job.timeout_seconds <= 86400
    error_message = "job.timeout_seconds must be between 60 and 86400 (Cloud Run's task timeout limit is 24 h)."
  }
  validation {
    condition     = var.job.kms_key_name == null || can(regex("^projects/[^/]+/locations/[^/]+/keyRings/[^/]+/cryptoKeys/[^/]+$", var.job.kms_key_name))
    error_message = "job.kms_key_name must look like projects/P/locations/L/keyRings/R/cryptoKeys/K."
  }
  validation {
    condition     = var.job.max_retries >= 0 && var.job.max_retries <= 10
    error_message = "job.max_retries must be between 0 and 10; 0 lets the adapter retry with backoff instead."
  }
  validation {
    condition     = alltrue([for location in var.job.allowed_replication_locations : can(regex("^[a-z]{2,20}-[a-z]{2,20}[0-9]{1,2}$", location))])
    error_message = "job.allowed_replication_locations must list Google Cloud regions such as us-central1 (Secret Manager replicates to regions only)."
  }
  validation {
    condition     = var.job.replication_policy == "automatic" || can(regex("^user-managed:[a-z0-9-]+(,[a-z0-9-]+)*$", var.job.replication_policy))
    error_message = "job.replication_policy must be automatic or user-managed:LOCATION[,LOCATION...]."
  }
}

variable "labels" {
  description = "Labels added to every resource that supports them."
  type        = map(string)
  default     = {}
  nullable    = false
}

variable "launch_queue" {
  description = "The Cloud Tasks queue every launch goes through (the adapter creates one named task per launch; the task calls RunJob as the launcher service account). name (default NAME_PREFIX-launches; a deleted queue's name cannot be reused for 7 days). rate_per_minute (120): the fleet-wide RunJob rate, kept under Cloud Run's 'Job run requests per minute per region' quota (default not published: check the project's quota page); the queue dispatches at rate_per_minute / 60 a second. max_concurrent (10): RunJob calls in flight at once (not executions: RunJob answers once the execution is created). Retries of a refused RunJob (Cloud Tasks retries every non-2xx answer): max_attempts (8), min_backoff (10s), max_backoff (300s), max_doublings (4), which spread the 7 retries over about 15 minutes. per_management_cluster (true): a queue more per management_clusters entry, NAME-MANAGEMENT_CLUSTER, with the same settings, where the launches of clusters placed there wait; `npm run -s fleet -- pause --management-cluster NAME` pauses it alone (each queue has its own rate: the fleet-wide RunJob quota is shared by them, and a 429 is retried by the queue). Pause launches with npm run -s fleet -- pause (docs/operations.md)."
  type = object({
    name            = optional(string)
    rate_per_minute = optional(number, 120)
    max_concurrent  = optional(number, 10)
    max_attempts    = optional(number, 8)
    min_backoff     = optional(string, "10s")
    max_backoff     = optional(string, "300s")
    max_doublings   = optional(number, 4)
    # One queue more per management cluster, NAME-MANAGEMENT_CLUSTER, with the same settings: a
    # placed cluster's launches go there, so `fleet pause --management-cluster` holds them alone.
    per_management_cluster = optional(bool, true)
  })
  default  = {}
  nullable = false
  validation {
    condition     = var.launch_queue.name == null || can(regex("^[A-Za-z0-9-]{1,100}$", var.launch_queue.name))
    error_message = "launch_queue.name must be 1-100 letters, digits or hyphens (Cloud Tasks' rule for queue ids), or unset for NAME_PREFIX-launches."
  }
  validation {
    # Cloud Tasks dispatches at most 500 tasks a second per queue (max_dispatches_per_second).
    condition     = var.launch_queue.rate_per_minute > 0 && var.launch_queue.rate_per_minute <= 30000
    error_message = "launch_queue.rate_per_minute must be above 0 and at most 30000 (Cloud Tasks' 500 dispatches a second); to stop launches, pause the queue instead (gcloud tasks queues pause, docs/deployment.md)."
  }
  validation {
    condition     = var.launch_queue.max_concurrent >= 1 && var.launch_queue.max_concurrent <= 5000 && floor(var.launch_queue.max_concurrent) == var.launch_queue.max_concurrent
    error_message = "launch_queue.max_concurrent must be a whole number from 1 to 5000."
  }
  validation {
    # Finite on purpose: a task refused for good must end (the adapter also deletes one it recognises).
    condition     = var.launch_queue.max_attempts >= 1 && var.launch_queue.max_attempts <= 100 && floor(var.launch_queue.max_attempts) == var.launch_queue.max_attempts
    error_message = "launch_queue.max_attempts must be a whole number from 1 to 100 (-1, unlimited, is refused: a RunJob refused for good would be retried forever)."
  }
  validation {
    condition     = can(regex("^[0-9]+s$", var.launch_queue.min_backoff)) && can(regex("^[0-9]+s$", var.launch_queue.max_backoff)) && try(tonumber(trimsuffix(var.launch_queue.min_backoff, "s")) <= tonumber(trimsuffix(var.launch_queue.max_backoff, "s")), false)
    error_message = "launch_queue.min_backoff and max_backoff must be whole seconds like 10s and 300s, min_backoff not above max_backoff."
  }
  validation {
    condition     = var.launch_queue.max_doublings >= 0 && var.launch_queue.max_doublings <= 16 && floor(var.launch_queue.max_doublings) == var.launch_queue.max_doublings
    error_message = "launch_queue.max_doublings must be a whole number from 0 to 16."
  }
}

variable "management_cluster" {
  description = "DEPRECATED (use management_clusters): the single management cluster the job pushes Secrets to: a GKE IP endpoint https://IP with its CA (base64 PEM, or PEM), a GKE DNS-based endpoint https://*.gke.goog (no CA) or a Connect Gateway URL https://[REGION-]connectgateway.googleapis.com/v1/projects/PROJECT_NUMBER/locations/LOCATION/gkeMemberships/MEMBERSHIP (no CA), its project (which also owns its Workload Identity pool), and the namespaces to bind RBAC in (or cluster-wide). Still honoured as before (same IAM, RBAC and job env); it is the cluster named default_management_cluster (default \"default\"). Validated in modules/management-clusters/variables.tf (legacy_management_cluster)."
  type = object({
    endpoint          = string
    ca_certificate    = optional(string)
    project_id        = string
    namespaces        = optional(list(string), [])
    cluster_wide_rbac = optional(bool, false)
  })
  default = null
  validation {
    # `? :`, not `||`: Terraform evaluates both operands, and an attribute of null is an error.
    condition     = var.management_cluster == null ? true : can(regex("^[a-z][a-z0-9-]{4,28}[a-z0-9]$", var.management_cluster.project_id))
    error_message = "management_cluster.project_id must be a GCP project id."
  }
  validation {
    condition     = var.management_cluster == null ? true : startswith(var.management_cluster.endpoint, "https://")
    error_message = "management_cluster.endpoint must be an https:// URL (GKE control plane or Connect Gateway)."
  }
}

variable "management_clusters" {
  description = "Management clusters by name (a DNS label: the name placement reports in data.managementCluster); docs/management-clusters.md. kind = \"gke\": endpoint, project, location, cluster_name; endpoint is the IP endpoint https://IP with ca_certificate (the cluster CA: base64 PEM as GKE gives it, or PEM), or the DNS-based endpoint https://gke-HASH.REGION.gke.goog with no ca_certificate (publicly trusted certificate; reaches a private control plane without VPC egress). kind = \"connect-gateway\": endpoint https://[REGION-]connectgateway.googleapis.com/v1/projects/PROJECT_NUMBER/locations/LOCATION/gkeMemberships/MEMBERSHIP (the fleet host project's number; GKE memberships only; no ca_certificate), project (the fleet host project id), location, membership. namespaces: null (default) binds the job cluster-wide, fenced by a ValidatingAdmissionPolicy; a list binds it in those namespaces only. Validated in modules/management-clusters/variables.tf."
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
}

variable "default_management_cluster" {
  description = "The management cluster the job uses when placement names none (DEFAULT_MANAGEMENT_CLUSTER): a key of management_clusters; null means the only one when there is one (with several and no default, every execution must name its cluster: the job refuses one that does not as a configuration error). With the deprecated management_cluster: the name that cluster goes by."
  type        = string
  default     = null
}

variable "management_namespace" {
  description = "The namespace layout on the management clusters, chosen once and rendered into the adapter, the job and the admission fence alike (docs/management-clusters.md). template: one namespace per cluster, `clusters-{id}` (the default), or one shared namespace such as seed 004's `clusters`; the Secret is `{id}-pull-secret` either way. migration: a move from another layout, `{ previous = \"clusters-{id}\", phase = \"keep-previous\" }` then `phase = \"remove-previous\"` then null (docs/operations.md, \"Changing the namespace layout\"). With a shared namespace, management_clusters[*].namespaces = [that namespace] binds the job there only."
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

variable "monitoring" {
  description = "Log-based metrics, alert policies and the dashboard. metric_propagation_wait: how long the alert policies wait after their log-based metrics are created, once (600s: Cloud Monitoring says a new metric can take up to 10 minutes to be usable in an alert policy, and the provider does not retry; see monitoring.tf). not_converged_after_seconds / stuck_preconditions_after_seconds: how long a cluster may wait to converge (queued, running, failed, not available) / wait in PreconditionsNotMet before the fleet alert fires (fleet-alerts.tf). run_job_audit_logs: enable Cloud Run's DATA_WRITE audit logs in project_id, where RunJob calls are recorded (the unexpected-overrides alert reads them); false only where audit configs are managed elsewhere, which must then enable them (google_project_iam_audit_config is authoritative for the service)."
  type = object({
    enabled                 = optional(bool, true)
    job_failure_ratio       = optional(number, 0.1)
    job_duration_seconds    = optional(number, 300)
    metric_propagation_wait = optional(string, "600s")
    run_job_audit_logs      = optional(bool, true)
    # The fleet alerts' thresholds (fleet-alerts.tf); 1800 s is `fleet report`'s default
    # --not-converged-after, so the alert and the report agree on which clusters are late.
    not_converged_after_seconds       = optional(number, 1800)
    stuck_preconditions_after_seconds = optional(number, 1800)
  })
  default  = {}
  nullable = false
  validation {
    condition     = var.monitoring.job_failure_ratio > 0 && var.monitoring.job_failure_ratio <= 1
    error_message = "monitoring.job_failure_ratio must be in (0, 1]."
  }
  validation {
    condition     = var.monitoring.not_converged_after_seconds >= 60 && floor(var.monitoring.not_converged_after_seconds) == var.monitoring.not_converged_after_seconds && var.monitoring.stuck_preconditions_after_seconds >= 60 && floor(var.monitoring.stuck_preconditions_after_seconds) == var.monitoring.stuck_preconditions_after_seconds
    error_message = "monitoring.not_converged_after_seconds and monitoring.stuck_preconditions_after_seconds must be whole seconds, at least 60 (a shorter wait is a launch in progress, not a cluster stuck)."
  }
  validation {
    condition     = can(regex("^[0-9]+s$", var.monitoring.metric_propagation_wait))
    error_message = "monitoring.metric_propagation_wait must be seconds, like 600s."
  }
}

variable "network" {
  description = "Optional VPC egress for the functions and the job, e.g. to reach a private GKE control plane or a private HyperFleet API. connector: a Serverless VPC Access connector (projects/P/locations/R/connectors/C), used by the functions, and by the job when no network is given; network/subnetwork: Direct VPC egress for the job; egress: PRIVATE_RANGES_ONLY or ALL_TRAFFIC. null: no VPC egress."
  type = object({
    connector  = optional(string)
    network    = optional(string)
    subnetwork = optional(string)
    egress     = optional(string, "PRIVATE_RANGES_ONLY")
  })
  default = null
  validation {
    condition     = var.network == null || try(contains(["PRIVATE_RANGES_ONLY", "ALL_TRAFFIC"], var.network.egress), false)
    error_message = "network.egress must be PRIVATE_RANGES_ONLY or ALL_TRAFFIC."
  }
  validation {
    condition     = var.network == null || try(var.network.connector != null || var.network.network != null, false)
    error_message = "network needs a connector (functions and job) or a network (Direct VPC, job only; the functions then have no VPC egress)."
  }
}

variable "name_prefix" {
  description = "Prefix of every resource name (service accounts, topics, functions, the job)."
  type        = string
  default     = "pullsecret"
  nullable    = false
  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{1,13}[a-z0-9]$", var.name_prefix))
    error_message = "name_prefix must be 3-15 lowercase letters, digits or hyphens, starting with a letter and not ending with a hyphen (service account ids are limited to 30 characters)."
  }
}

variable "project_id" {
  description = "The platform project that runs the functions, the job and Pub/Sub."
  type        = string
  nullable    = false
  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{4,28}[a-z0-9]$", var.project_id))
    error_message = "project_id must be a GCP project id."
  }
}

variable "region" {
  description = "Region of the functions, the job, the Eventarc triggers and the Artifact Registry repository."
  type        = string
  nullable    = false
  validation {
    condition     = can(regex("^[a-z]+-[a-z]+[0-9]+$", var.region))
    error_message = "region must be a Google Cloud region such as us-central1 or europe-west4 (not a zone, not global)."
  }
}

variable "sentinel_topic" {
  description = "The existing topic Sentinel publishes to (id or projects/P/topics/T), usually hyperfleet-system-clusters."
  type        = string
  default     = "hyperfleet-system-clusters"
  nullable    = false
}

variable "target_project_ids" {
  description = "REMOVED: the rights in customer projects are granted by the module pullsecret-tenant-project (one conditional binding per project or folder, applied where those projects are made); this module holds no per-project resource. Leave unset."
  type        = list(string)
  default     = []
  nullable    = false
  validation {
    condition     = length(var.target_project_ids) == 0
    error_message = "target_project_ids is no longer read: grant the job, reporter and reader their rights in customer projects with the module terraform/modules/pullsecret-tenant-project (per project or per folder), using this module's tenant_access output; see docs/deployment.md, \"Onboarding a customer project\". Remove target_project_ids from this module call."
  }
}

variable "tracing_enabled" {
  description = "Export spans of every reconcile (adapter, job, reporter, HyperFleet calls) to Cloud Trace over OTLP (telemetry.googleapis.com). true enables the Cloud Trace and Telemetry APIs, grants the three runtime identities roles/cloudtrace.agent and roles/telemetry.tracesWriter, and sets the OTEL_* variables; false sets none of them (logs still carry a trace id per reconcile)."
  type        = bool
  default     = true
  nullable    = false
}

variable "tracing_sampler_ratio" {
  description = "The share of new traces sampled, 0 to 1 (OTEL_TRACES_SAMPLER=parentbased_traceidratio, OTEL_TRACES_SAMPLER_ARG). A trace that arrives sampled (Sentinel's traceparent) stays sampled through the job and the status write. Validated in modules/tracing/variables.tf."
  type        = number
  default     = 1
  nullable    = false
}

variable "workload_identity" {
  description = "Read-only access to the pull secrets for HyperShift components: GKE Workload Identity bindings (namespace/KSA pairs) and, for a management cluster outside GKE, a Workload Identity Federation pool."
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
  default  = {}
  nullable = false
}

variable "manage_eventarc_agent_role" {
  description = "Grant the project's Eventarc service agent roles/eventarc.serviceAgent (delivery.mode = eventarc). A new project's agent may lack it at the first trigger (provider #25294). false where the project used Eventarc before: the grant is project-wide, and this module's destroy (or a switch to push-subscription) would revoke it from every other Eventarc trigger of the project."
  type        = bool
  default     = true
  nullable    = false
}

variable "fleet_operators" {
  description = "Principals (user:, group:, serviceAccount:) who may pause and resume launches and read the launch queue's state (npm run -s fleet -- pause|resume|report, docs/operations.md): a custom role with cloudtasks.queues.pause, .resume and .get, granted on the launch queue only; and ask for resyncs (npm run -s fleet -- resync): roles/pubsub.publisher on the fleet-requests topic only. Empty (default): no grant; an operator with broader rights (Cloud Tasks Admin) can still run the command."
  type        = list(string)
  default     = []
  nullable    = false
  validation {
    condition     = alltrue([for m in var.fleet_operators : can(regex("^(user|group|serviceAccount|domain|principal|principalSet):.+$", m))])
    error_message = "fleet_operators entries must be IAM members such as user:alice@example.com, group:sre@example.com or serviceAccount:cron@P.iam.gserviceaccount.com."
  }
}
