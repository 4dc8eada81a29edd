# delivery.mode = eventarc (the default): one Eventarc trigger per route.
#
# Why google_eventarc_trigger and not event_trigger on google_cloudfunctions2_function:
# - the reporter consumes two topics (job results and execution-finished); a function has at most
#   one event_trigger, a Cloud Run service may have any number of Eventarc triggers;
# - google_eventarc_trigger exports the Pub/Sub subscription Eventarc creates for it
#   (transport[0].pubsub[0].subscription), which the opt-in dead-letter step below needs; the
#   function's event_trigger exports only the trigger's name.
# Retries: an Eventarc trigger with a Pub/Sub transport always retries (its retry_policy can only
# say max_attempts = 1, i.e. never retry); the subscription's exponential backoff (10 s to 600 s)
# and 24 h retention apply. This is what event_trigger's retry_policy = RETRY_POLICY_RETRY means.
# The code bounds it (EVENT_MAX_AGE, EVENT_MAX_FAILURES; the retry_bound_exceeded metric alerts).
resource "google_eventarc_trigger" "delivery" {
  for_each        = local.triggers
  project         = var.project_id
  name            = "${var.name_prefix}-${each.key}"
  location        = var.region
  service_account = google_service_account.trigger[each.value.function].email
  labels          = var.labels

  matching_criteria {
    attribute = "type"
    value     = "google.cloud.pubsub.topic.v1.messagePublished"
  }

  transport {
    pubsub {
      topic = each.value.topic
    }
  }

  destination {
    cloud_run_service {
      # The Cloud Run service's NAME, which for a Cloud Run function is the function's name.
      # service_config[0].service is the full projects/P/locations/R/services/NAME the API returns,
      # which this field does not take (every provider test and Fabric's module pass the name).
      service = each.value.function == "adapter" ? google_cloudfunctions2_function.adapter.name : google_cloudfunctions2_function.reporter.name
      region  = var.region
    }
  }

  lifecycle {
    # Eventarc's Pub/Sub transport uses a topic of the trigger's own project.
    precondition {
      condition     = startswith(each.value.topic, "projects/${var.project_id}/topics/")
      error_message = "delivery.mode = eventarc needs the ${each.key} topic (${each.value.topic}) in project_id (${var.project_id}); for a Sentinel topic in another project use delivery.mode = push-subscription."
    }
  }

  # The Eventarc service agent exists and holds its role (service-agents.tf) before the first trigger.
  depends_on = [
    google_project_service.apis,
    google_cloud_run_service_iam_member.trigger_invoker,
    time_sleep.service_agents,
  ]
}

# Projects created before April 2021: the Pub/Sub service agent mints the trigger identity's
# tokens. Harmless on newer projects.
resource "google_service_account_iam_member" "trigger_token_creator" {
  for_each           = google_service_account.trigger
  service_account_id = each.value.name
  role               = "roles/iam.serviceAccountTokenCreator"
  member             = local.pubsub_agent
  depends_on         = [time_sleep.service_agents]
}

# Opt-in (delivery.attach_dead_letter = true): attach the dead-letter topic to the subscription
# Eventarc created for each trigger. The provider cannot express this (hashicorp/terraform-provider-google
# #17697, #25069: the subscription is owned by Eventarc), so it runs gcloud on the machine that
# applies, and Terraform does not see the policy afterwards: it re-runs only when the trigger's
# subscription, the topic or the attempts change. See docs/deployment.md, "Delivery modes".
resource "google_pubsub_subscription_iam_member" "trigger_dead_letter_subscriber" {
  for_each     = local.attached_dlq
  project      = var.project_id
  subscription = google_eventarc_trigger.delivery[each.key].transport[0].pubsub[0].subscription
  role         = "roles/pubsub.subscriber"
  member       = local.pubsub_agent
  depends_on   = [time_sleep.service_agents]
}

resource "terraform_data" "attach_dead_letter" {
  for_each = local.attached_dlq
  triggers_replace = [
    google_eventarc_trigger.delivery[each.key].transport[0].pubsub[0].subscription,
    google_pubsub_topic.dead_letter[each.key].id,
    var.delivery.max_delivery_attempts,
  ]

  provisioner "local-exec" {
    command = join(" ", [
      "gcloud pubsub subscriptions update",
      google_eventarc_trigger.delivery[each.key].transport[0].pubsub[0].subscription,
      "--dead-letter-topic=${google_pubsub_topic.dead_letter[each.key].id}",
      "--max-delivery-attempts=${var.delivery.max_delivery_attempts}",
    ])
  }

  depends_on = [
    google_pubsub_topic_iam_member.dead_letter_publisher,
    google_pubsub_subscription_iam_member.trigger_dead_letter_subscriber,
  ]
}
