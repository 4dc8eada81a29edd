locals {
  # The four event routes: source topic -> function. Push endpoints use the /projects/P/topics/T
  # path so functions-framework builds the messagePublished CloudEvent; Eventarc sends a binary
  # CloudEvent and needs no path.
  routes = {
    adapter = {
      # Checked at plan (prerequisites.tf, check "sentinel_topic"): a missing topic is a warning
      # there, and this route's trigger or subscription is where an apply would stop.
      topic    = local.sentinel_topic_id
      function = "adapter"
      endpoint = "${google_cloudfunctions2_function.adapter.service_config[0].uri}/${local.sentinel_topic_id}"
      audience = google_cloudfunctions2_function.adapter.service_config[0].uri
    }
    # Fleet requests (fleet-requests.tf): Secret Manager's notifications on the default pull secret,
    # the fleet command's resyncs and the daily batched resync, to the same adapter entry point,
    # which tells them from Sentinel's events by their attributes.
    fleet = {
      topic    = google_pubsub_topic.fleet_requests.id
      function = "adapter"
      endpoint = "${google_cloudfunctions2_function.adapter.service_config[0].uri}/${google_pubsub_topic.fleet_requests.id}"
      audience = google_cloudfunctions2_function.adapter.service_config[0].uri
    }
    results = {
      topic    = google_pubsub_topic.results.id
      function = "reporter"
      endpoint = "${google_cloudfunctions2_function.reporter.service_config[0].uri}/${google_pubsub_topic.results.id}"
      audience = google_cloudfunctions2_function.reporter.service_config[0].uri
    }
    finished = {
      topic    = google_pubsub_topic.execution_finished.id
      function = "reporter"
      endpoint = "${google_cloudfunctions2_function.reporter.service_config[0].uri}/${google_pubsub_topic.execution_finished.id}"
      audience = google_cloudfunctions2_function.reporter.service_config[0].uri
    }
  }
  subscriptions     = local.eventarc ? {} : local.routes
  triggers          = local.eventarc ? local.routes : {}
  attached_dlq      = local.eventarc && var.delivery.attach_dead_letter ? local.routes : {}
  dead_letter_route = local.eventarc && !var.delivery.attach_dead_letter ? {} : local.routes
}

resource "google_pubsub_topic" "results" {
  project    = var.project_id
  name       = "${var.name_prefix}-job-results"
  labels     = var.labels
  depends_on = [google_project_service.apis]
}

resource "google_pubsub_topic" "execution_finished" {
  project    = var.project_id
  name       = "${var.name_prefix}-execution-finished"
  labels     = var.labels
  depends_on = [google_project_service.apis]
}

# Dead-letter topics: always in push mode; in eventarc mode only with delivery.attach_dead_letter.
resource "google_pubsub_topic" "dead_letter" {
  for_each   = local.dead_letter_route
  project    = var.project_id
  name       = "${var.name_prefix}-${each.key}-dead-letter"
  labels     = var.labels
  depends_on = [google_project_service.apis]
}

# Keeps dead-lettered messages for inspection; the alert fires when it is not empty. Never expires:
# the default expiration (31 days without activity) would delete it exactly when it matters.
resource "google_pubsub_subscription" "dead_letter_inspect" {
  for_each                   = local.dead_letter_route
  project                    = var.project_id
  name                       = "${var.name_prefix}-${each.key}-dead-letter-inspect"
  topic                      = google_pubsub_topic.dead_letter[each.key].id
  message_retention_duration = "604800s"
  labels                     = var.labels

  expiration_policy {
    ttl = ""
  }
}

resource "google_pubsub_subscription" "push" {
  for_each             = local.subscriptions
  project              = var.project_id
  name                 = "${var.name_prefix}-${each.key}"
  topic                = each.value.topic
  ack_deadline_seconds = var.delivery.ack_deadline_seconds
  labels               = var.labels

  push_config {
    push_endpoint = each.value.endpoint
    oidc_token {
      service_account_email = google_service_account.invoker[0].email
      audience              = each.value.audience
    }
  }

  retry_policy {
    minimum_backoff = var.delivery.minimum_backoff
    maximum_backoff = var.delivery.maximum_backoff
  }

  dead_letter_policy {
    dead_letter_topic     = google_pubsub_topic.dead_letter[each.key].id
    max_delivery_attempts = var.delivery.max_delivery_attempts
  }

  expiration_policy {
    ttl = ""
  }

  depends_on = [google_pubsub_topic_iam_member.dead_letter_publisher]
}

# Dead-lettering runs as the Pub/Sub service agent: it publishes to the dead-letter topics and
# must be able to acknowledge on the source subscriptions (push ones here, Eventarc's in eventarc.tf).
resource "google_pubsub_topic_iam_member" "dead_letter_publisher" {
  for_each   = local.dead_letter_route
  project    = var.project_id
  topic      = google_pubsub_topic.dead_letter[each.key].name
  role       = "roles/pubsub.publisher"
  member     = local.pubsub_agent
  depends_on = [time_sleep.service_agents]
}

resource "google_pubsub_subscription_iam_member" "dead_letter_subscriber" {
  for_each     = local.subscriptions
  project      = var.project_id
  subscription = google_pubsub_subscription.push[each.key].name
  role         = "roles/pubsub.subscriber"
  member       = local.pubsub_agent
  depends_on   = [time_sleep.service_agents]
}

# The service agent mints the OIDC tokens of the push subscriptions as the invoker.
resource "google_service_account_iam_member" "invoker_token_creator" {
  count              = local.eventarc ? 0 : 1
  service_account_id = google_service_account.invoker[0].name
  role               = "roles/iam.serviceAccountTokenCreator"
  member             = local.pubsub_agent
  depends_on         = [time_sleep.service_agents]
}

resource "google_pubsub_topic_iam_member" "job_publishes_results" {
  project = var.project_id
  topic   = google_pubsub_topic.results.name
  role    = local.grant["job-publishes-results"].role
  member  = "serviceAccount:${google_service_account.job.email}"
}
