output "adapter_url" {
  description = "URL of the adapter function (internal ingress; invoked by its Eventarc trigger or push subscription)."
  value       = google_cloudfunctions2_function.adapter.service_config[0].uri
}

output "functions_repository" {
  description = "The Artifact Registry repository the two functions' builds push their images to."
  value       = google_artifact_registry_repository.functions.id
}

output "tenant_access" {
  description = "The identities to grant in customer projects, for the module pullsecret-tenant-project (identities = this): job, reporter and reader service account emails. See docs/deployment.md, \"Onboarding a customer project\"."
  value = {
    job      = google_service_account.job.email
    reporter = google_service_account.reporter.email
    reader   = google_service_account.reader.email
  }
}

output "dead_letter_subscriptions" {
  description = "Pull subscriptions holding dead-lettered messages, by route (push mode, or eventarc with attach_dead_letter)."
  value       = { for key, subscription in google_pubsub_subscription.dead_letter_inspect : key => subscription.id }
}

output "job_name" {
  description = "Full resource name of the pull secret Cloud Run Job."
  value       = local.job_id
}

output "launch_queue" {
  description = "The Cloud Tasks queue every launch goes through: id (LAUNCH_QUEUE), name and location. Pause launches with `npm run -s fleet -- pause --queue ID` (it pauses this queue and each management cluster's, NAME-MANAGEMENT_CLUSTER) and resume them with `fleet resume` (docs/deployment.md, \"Pausing launches\"); terraform apply leaves a paused queue paused."
  value = {
    id       = google_cloud_tasks_queue.launches.id
    name     = google_cloud_tasks_queue.launches.name
    location = google_cloud_tasks_queue.launches.location
  }
}

output "management_cluster_fence" {
  description = "The admission fence (ValidatingAdmissionPolicy + binding) for the job's identity, the same YAML for every management cluster. Apply it first and alone (`terraform output -raw management_cluster_fence | kubectl apply -f -`): kubectl goes on after an object fails, so applied together with the RBAC a fence that fails (Kubernetes < 1.30) would leave the binding unfenced."
  value       = module.management_clusters.fence
}

output "management_cluster_rbac" {
  description = "Per management cluster name: the admission fence (ValidatingAdmissionPolicy + binding) and the job's Kubernetes RBAC (ClusterRole, ClusterRoleBinding or RoleBindings), one YAML each; apply management_cluster_fence first, then this with `terraform output -json management_cluster_rbac | jq -r '.[\"NAME\"]' | kubectl apply -f -`."
  value       = local.management_cluster_rbac
}

output "management_clusters" {
  description = "The management clusters by name (the deprecated management_cluster as one entry): kind, endpoint, ca_certificate, project, location, cluster_name, membership, and the gcloud command that points kubectl at it. For kubernetes providers in the root module."
  value = {
    for name, cluster in module.management_clusters.clusters : name => {
      kind                = cluster.kind
      endpoint            = cluster.endpoint
      ca_certificate      = cluster.ca_certificate
      project             = cluster.project
      location            = cluster.location
      cluster_name        = cluster.cluster_name
      membership          = cluster.membership
      credentials_command = module.management_clusters.credentials_commands[name]
    }
  }
}

output "default_management_cluster" {
  description = "The management cluster the job uses when placement names none (null: several and no default)."
  value       = module.management_clusters.default_management_cluster
}

output "reporter_url" {
  description = "URL of the reporter function (internal ingress; invoked by its Eventarc triggers or push subscriptions)."
  value       = google_cloudfunctions2_function.reporter.service_config[0].uri
}

output "service_accounts" {
  description = "Email of each service account, by role."
  value = {
    adapter          = google_service_account.adapter.email
    build            = google_service_account.build.email
    invoker          = length(google_service_account.invoker) > 0 ? google_service_account.invoker[0].email : null
    job              = google_service_account.job.email
    launcher         = google_service_account.launcher.email
    reader           = google_service_account.reader.email
    reporter         = google_service_account.reporter.email
    trigger_adapter  = try(google_service_account.trigger["adapter"].email, null)
    trigger_reporter = try(google_service_account.trigger["reporter"].email, null)
  }
}

output "subscriptions" {
  description = "The subscription delivering each route (adapter, fleet, results, finished): the push subscription, or the one Eventarc created for the trigger."
  value = merge(
    { for key, subscription in google_pubsub_subscription.push : key => subscription.id },
    { for key, trigger in google_eventarc_trigger.delivery : key => trigger.transport[0].pubsub[0].subscription },
  )
}

output "eventarc_triggers" {
  description = "Eventarc triggers by route (delivery.mode = eventarc)."
  value       = { for key, trigger in google_eventarc_trigger.delivery : key => trigger.id }
}

output "management_cluster_rbac_inputs" {
  description = "Per management cluster name, what the pullsecret-cluster-rbac module needs: the job's Google identity (the Kubernetes user), the namespaces to bind in, whether to bind cluster-wide (then fenced), and the namespace layout the fence admits (management_namespace)."
  value = {
    for name, cluster in module.management_clusters.clusters : name => {
      job_service_account = local.job_identity
      namespaces          = cluster.namespaces
      cluster_wide        = cluster.cluster_wide
      namespace_layout    = var.management_namespace
    }
  }
}

output "topics" {
  description = "Topics the system uses."
  value = {
    execution_finished = google_pubsub_topic.execution_finished.id
    fleet_requests     = google_pubsub_topic.fleet_requests.id
    results            = google_pubsub_topic.results.id
    sentinel           = local.sentinel_topic_id
    dead_letter        = { for key, topic in google_pubsub_topic.dead_letter : key => topic.id }
  }
}

output "workload_identity_pool" {
  description = "Name of the Workload Identity Federation pool, when one was created."
  value       = length(google_iam_workload_identity_pool.management) > 0 ? google_iam_workload_identity_pool.management[0].name : null
}

output "fleet_requests_topic" {
  description = "The fleet-requests topic (projects/P/topics/T): where `npm run -s fleet -- resync` publishes (--topic, or FLEET_REQUESTS_TOPIC), Secret Manager notifies changes to the default pull secret, and Cloud Scheduler asks for the daily batched resync."
  value       = google_pubsub_topic.fleet_requests.id
}

output "default_pull_secret_notifications_command" {
  description = "The command that makes the default pull secret (default_pull_secret_version's secret, the operator's, outside this module's state) notify the fleet-requests topic, so that adding a version rotates the fleet; run it once with secretmanager.secrets.update on the secret (docs/deployment.md). null without a default pull secret."
  value       = local.default_secret == null ? null : "gcloud secrets update ${local.default_secret.name} --project ${local.default_secret.project} --add-topics=${google_pubsub_topic.fleet_requests.id}"
}
